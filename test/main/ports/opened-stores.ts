// Stores a contract opens are closed after each test, whatever the adapter.
import { afterEach } from 'vitest';

/** `track(store)` returns the store and closes it after the current test. */
export function closedAfterEach<T extends { close(): unknown }>(): (store: T) => T {
  const open: T[] = [];
  afterEach(async () => { for (const s of open.splice(0)) await s.close(); });
  return (store) => { open.push(store); return store; };
}
