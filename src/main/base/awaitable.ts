// A port method that a remote adapter answers later but the in-process adapter answers at once
// returns `Awaitable<T>`: the memory adapter returns the value itself, so the caller goes on in the
// same turn (as it did before there were ports), and a Redis adapter returns a Promise.
// `whenReady` is how callers consume one without adding a turn on the in-process path.

export type Awaitable<T> = T | Promise<T>;

/** Calls `then` with the value at once when it is not a promise, else when it resolves; a rejection goes to `onError`. */
export function whenReady<T>(value: Awaitable<T>, then: (value: T) => void, onError: (err: unknown) => void): void {
  if (value instanceof Promise) value.then(then, onError);
  else then(value);
}
