// The tests' one door to socket.io-client's internals (like src/main/internals/ for the service):
// written for socket.io-client 4.8.4 and engine.io-client 6.6.8, the versions package-lock.json
// pins; test/main/internals/library-internals.test.ts fails naming this module when the installed
// versions differ, and checks on a real connection that what is read here is still there. On an
// upgrade, re-read socket.io-client's build/esm-debug/socket.js (`_pid`, `_lastOffset`) and
// engine.io-client's build/esm-debug/transports/websocket.js (`ws`), then update WRITTEN_FOR.
//
// Why: the session-resume tests show which session a client presents (its private `_pid`, the
// session id the server issued, and `_lastOffset`, the last packet it got); the tests that cut a
// connection without a close frame, or stop reading it, need the ws WebSocket under the client's
// 'websocket' transport (engine.io-client's private `ws`).
import type { Socket } from 'socket.io-client';
import type { WebSocket } from 'ws';

export const WRITTEN_FOR = [
  { package: 'socket.io-client', version: '4.8.4' },
  { package: 'engine.io-client', version: '6.6.8' },
] as const;

/** The session id the server issued to this client (connection state recovery on), or undefined. */
export function sessionPid(s: Socket): string | undefined {
  return (s as unknown as { _pid?: string })._pid;
}

/** The offset of the last packet this client received (what it presents to recover), or undefined. */
export function lastOffset(s: Socket): string | undefined {
  return (s as unknown as { _lastOffset?: string })._lastOffset;
}

/** Sets the offset this client will present when it recovers (a test's stale or bogus one). */
export function setLastOffset(s: Socket, offset: string): void {
  (s as unknown as { _lastOffset?: string })._lastOffset = offset;
}

/** The ws WebSocket under the client's transport, when it is 'websocket' (undefined otherwise). */
export function webSocketOf(s: Socket): WebSocket | undefined {
  return webSocketOfTransport(s.io.engine?.transport);
}

/** The ws WebSocket under an engine.io-client transport (the one an 'upgrading' event names), when it is 'websocket'. */
export function webSocketOfTransport(t: unknown): WebSocket | undefined {
  const transport = t as { name?: string; ws?: WebSocket } | undefined;
  return transport?.name === 'websocket' ? transport.ws : undefined;
}
