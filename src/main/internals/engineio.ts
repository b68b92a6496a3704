// The one door to engine.io's internals (issue 16: one owner per library internal). Written for
// engine.io 6.6.12, the version package-lock.json pins (socket.io's dependency):
// test/main/internals/library-internals.test.ts fails naming this module when the installed version
// differs, and checks on a real server that what is read here is still there. On an upgrade, re-read
// engine.io's lib/socket.ts and engine.io's lib/transports/websocket.ts, then update WRITTEN_FOR.
//
// The broadcast listener (broadcast/server.ts) writes match frames itself to overlays on WebSocket
// (docs/architecture.md, "Compressing each frame once"), so it needs:
// - the ws WebSocket under engine.io's WebSocket transport (`transport.socket`, not in the typings);
// - the length of an engine.io socket's private `writeBuffer` (packets not yet flushed: for a
//   polling overlay, how far behind it is; frames are skipped past MAX_POLLING_PACKETS).
import type { Socket } from 'socket.io';

export const WRITTEN_FOR = { package: 'engine.io', version: '6.6.12' } as const;

/** An engine.io transport as the broadcast listener sees it: its name, and for 'websocket' the ws WebSocket it wraps. */
export interface EngineTransport {
  name: string;
  socket?: unknown;
}

type EngineSocket = Socket['conn'];

/** The connection's current transport (also what engine.io's `upgrade` event hands over). */
export function transportOf(conn: EngineSocket): EngineTransport {
  return conn.transport as unknown as EngineTransport;
}

/** Packets engine.io holds for the connection, not yet written to its transport (private `writeBuffer`). */
export function writeBufferLength(conn: EngineSocket): number {
  return (conn as unknown as { writeBuffer: unknown[] }).writeBuffer.length;
}
