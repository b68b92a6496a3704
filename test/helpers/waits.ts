// Waiting in tests: for an event or a state, never for a length of time (docs: the guide's
// "Reliable tests"). A test that must show that nothing comes waits for a later marker that
// travels the same ordered path (the next frame of the match, an echo on the same socket), then
// checks that nothing came before it. The few waits on the clock that remain (a client's pace,
// a lifetime on the service's clock) go through `sleep`, each with a comment saying why no event
// can replace it (at most 10 in test/, poll intervals and a client's pace included); they are
// listed by: grep -rnE 'await (sleep|until)\(|await new Promise[^;]*setTimeout\((r|resolve), |await setTimeout\(|=> sleep\(' test
import type { Socket } from 'socket.io-client';

/**
 * A fixed wait. Only where no event can replace it (a client's pace, a time-based rule the
 * service applies with no observable event): say why at the call.
 */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** One turn of the event loop: lets sockets write and read between the sends of a long loop. */
export function yieldToIo(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Polls `check` until it returns a value other than undefined or false, and resolves with it; for
 * helpers that start servers (where expect.poll does not fit: a start-up has no expectation).
 * Rejects with `what` after `ms`; a check that throws rejects at once.
 */
export async function pollUntil<T>(check: () => T | undefined | false | Promise<T | undefined | false>, what: string, ms = 20_000, everyMs = 20): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs)); // a poll's interval, not a wait for time to pass
  }
}

let echoes = 0;

/**
 * The ingestion listener's echo (the test hook `test_echo`, on by default in tests): resolves once
 * the service answered an echo sent now on `socket`. Socket.IO hands a socket's packets to their
 * handlers in order, so every event sent before it on that socket has been handled (its
 * synchronous part: a drop, an ack sent at once) when the echo comes back.
 */
export function echoed(socket: Socket, ms = 15_000): Promise<void> {
  const token = `echo-${++echoes}`;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { socket.off('test_echo', on); reject(new Error(`no test_echo within ${ms} ms`)); }, ms);
    const on = (payload: unknown) => {
      if (payload !== token) return;
      clearTimeout(timer);
      socket.off('test_echo', on);
      resolve();
    };
    socket.on('test_echo', on);
    socket.emit('test_echo', token);
  });
}

/**
 * A client's own pace: runs `step` while `more()` holds, `gapMs` apart. The one fixed wait a
 * simulated client needs (the game, a streaming observer, a rate-bound sender goes on at its own
 * rhythm whatever the service does): it waits for nothing in the service.
 */
export async function atPace(gapMs: number, more: () => boolean, step: () => unknown): Promise<void> {
  while (more()) {
    await step();
    await sleep(gapMs); // the client's rhythm: no event to wait for
  }
}
