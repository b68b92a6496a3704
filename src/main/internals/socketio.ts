// The one door to socket.io's internals (issue 16: one owner per library internal). Written for
// socket.io 4.8.4, the version package-lock.json pins: test/main/internals/library-internals.test.ts
// fails naming this module when the installed version differs, and checks on a real server that
// what is read here is still there. On an upgrade, re-read socket.io's lib/socket.ts, then update
// WRITTEN_FOR.
//
// `pid`: with connection-state recovery on, socket.io gives each socket a private session id (sent
// to the client in CONNECT, presented again as `auth.pid` when it reconnects; `socket.recovered`
// says recovery worked). It is not in socket.io's typings. The ingestion listener uses it as the
// observer session's id (docs/client-contract.md 1.5): the id the client itself presents on return.
import type { Socket } from 'socket.io';

export const WRITTEN_FOR = { package: 'socket.io', version: '4.8.4' } as const;

/** The socket's recovery session id (socket.io's private `pid`); undefined when recovery is off. */
export function sessionPid(socket: Socket): string | undefined {
  return (socket as unknown as { pid?: string }).pid;
}
