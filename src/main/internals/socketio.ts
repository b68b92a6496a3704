// The one door to socket.io's internals (issue 16: one owner per library internal). Written for
// socket.io 4.8.4, the version package-lock.json pins: test/main/internals/library-internals.test.ts
// fails naming this module when the installed version differs, and checks on a real server that
// what is read here is still there and still behaves so. On an upgrade, re-read
// socket.io's lib/socket.ts and socket.io's lib/client.ts (`setup`, `ondecoded`), then update WRITTEN_FOR.
//
// `pid`: with connection-state recovery on, socket.io gives each socket a private session id (sent
// to the client in CONNECT, presented again as `auth.pid` when it reconnects; `socket.recovered`
// says recovery worked). It is not in socket.io's typings. The ingestion listener uses it as the
// observer session's id (docs/client-contract.md 1.5): the id the client itself presents on return.
//
// The per-event dispatch (issue 28: the hot events of an authenticated socket below it,
// ingest/direct-path.ts). What socket.io does with an EVENT packet its Client's decoder emits as
// `decoded`: Client.ondecoded finds the namespace's socket and calls `socket._onpacket(packet)` in a
// process.nextTick; onevent adds an ack callback when the packet has an id and calls the `onAny`
// listeners (private `_anyListeners`); dispatch runs the `socket.use` middlewares (private `fns`)
// and, in a second process.nextTick, emits the event to the socket's listeners if the socket is
// still connected. Without middlewares, `onAny` listeners and an ack id, that is: the listeners,
// two ticks later, if still connected. `dispatchLikeSocketIo` does exactly that for a packet it is
// handed instead: with the same number of ticks, a socket's events keep their order whichever path
// each took (process.nextTick is one FIFO queue; a callback's own ticks go to its end). Read for
// it: the Client's decoder (private `decoder`, one per connection, made from the Server's `parser`
// option), `fns` and `_anyListeners`.
import type { Socket } from 'socket.io';

export const WRITTEN_FOR = { package: 'socket.io', version: '4.8.4' } as const;

/** The socket's recovery session id (socket.io's private `pid`); undefined when recovery is off. */
export function sessionPid(socket: Socket): string | undefined {
  return (socket as unknown as { pid?: string }).pid;
}

interface SocketDispatchInternals {
  fns: unknown[];
  _anyListeners?: unknown[];
}

/** The decoder of the socket's connection (socket.io's Client's private `decoder`). */
export function connectionDecoder(socket: Socket): unknown {
  return (socket.client as unknown as { decoder?: unknown }).decoder;
}

/** Whether socket.io's dispatch of an event on `socket` runs no `socket.use` middleware and no `onAny` listener. */
export function plainDispatch(socket: Socket): boolean {
  const s = socket as unknown as SocketDispatchInternals;
  return s.fns.length === 0 && (s._anyListeners === undefined || s._anyListeners.length === 0);
}

/**
 * Calls `deliver(event, payload)` when socket.io would emit this event, decoded now without an ack
 * id on a socket with a plain dispatch (plainDispatch), to the socket's listeners: two ticks later,
 * if the socket is still connected then.
 */
export function dispatchLikeSocketIo<P>(socket: Socket, deliver: (event: string, payload: P) => void, event: string, payload: P): void {
  process.nextTick(secondTick, socket, deliver, event, payload);
}

function secondTick<P>(socket: Socket, deliver: (event: string, payload: P) => void, event: string, payload: P): void {
  process.nextTick(lastTick, socket, deliver, event, payload);
}

function lastTick<P>(socket: Socket, deliver: (event: string, payload: P) => void, event: string, payload: P): void {
  if (socket.connected) deliver(event, payload);
}
