// The tests' one door to ws's internals (like src/main/internals/ws.ts for the service): written
// for ws 8.21.3, the version package-lock.json pins; test/main/internals/library-internals.test.ts
// fails naming this module when the installed version differs, and checks on a real connection
// that what is used here is still there. On an upgrade, re-read ws's lib/websocket.js (`_socket`),
// then update WRITTEN_FOR.
//
// Why: a test that cuts a connection the way a network does (no close frame: the TCP socket
// destroyed) or stops reading it (a slow overlay: the TCP socket paused) needs the net.Socket
// under a WebSocket, which ws keeps private (`_socket`).
import type net from 'node:net';
import type { WebSocket } from 'ws';

export const WRITTEN_FOR = { package: 'ws', version: '8.21.3' } as const;

/** The TCP (or TLS) socket under a ws WebSocket. */
export function tcpOf(ws: WebSocket): net.Socket {
  return (ws as unknown as { _socket: net.Socket })._socket;
}
