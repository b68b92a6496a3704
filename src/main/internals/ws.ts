// The one door to ws's internals (issue 16: one owner per library internal). Written for ws 8.21.3,
// the version package-lock.json pins: test/main/internals/library-internals.test.ts fails naming this
// module when the installed version differs, and checks on a real connection that what is used here
// is still there. On an upgrade, re-read ws's lib/websocket.js and lib/sender.js, then update
// WRITTEN_FOR.
//
// The broadcast listener writes each match frame as one whole WebSocket message built once for all
// its recipients (broadcast/ws-frame.ts, the payload possibly permessage-deflate data already). ws
// has no public call for bytes that are already a frame: its Sender (the private `_sender`) has
// `sendFrame(list)`, which writes them to the socket as they are (one write, nothing allocated per
// delivery). It bypasses the Sender's queue, which only fills while ws compresses a message of its
// own, and ws never compresses here (broadcast/websocket.ts).
import type { WebSocket } from 'ws';

export const WRITTEN_FOR = { package: 'ws', version: '8.21.3' } as const;

interface Sender {
  sendFrame(list: Buffer[], cb?: (err?: Error) => void): void;
}

/** Writes `message`, one whole WebSocket frame (header and payload), on the socket through ws's Sender. */
export function sendWholeFrame(ws: WebSocket, message: Buffer): void {
  (ws as unknown as { _sender: Sender })._sender.sendFrame([message]);
}
