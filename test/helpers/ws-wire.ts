// The WebSocket messages a socket.io-client connection receives, as the bytes on the wire: what
// the server wrote (its header's RSV1 bit, its payload still deflated), read from the TCP socket
// under the client's WebSocket (test/helpers/internals/). The client decodes the same bytes as
// usual; this only reads a copy.
import zlib from 'node:zlib';
import type { Socket } from 'socket.io-client';
import type { WebSocket } from 'ws';
import { webSocketOf, webSocketOfTransport } from './internals/socketio-client.js';
import { tcpOf } from './internals/ws.js';

export interface WireMessage {
  /** RSV1: the payload is permessage-deflate data. */
  compressed: boolean;
  opcode: number;
  payload: Buffer;
}

/**
 * Starts recording the server's messages on `s` (connected over 'websocket'); the list fills as
 * they arrive. Server frames are unmasked and, from this service, whole (FIN) messages.
 */
export function recordWire(s: Socket): WireMessage[] {
  const ws = webSocketOf(s);
  if (!ws) throw new Error('recordWire: the socket is not on the websocket transport');
  return recordInto(ws, []);
}

/**
 * The same for the WebSocket a polling connection upgrades to, from the moment its probe came back
 * (engine.io-client's 'upgrading' event, before the client sends the upgrade packet): the list has
 * every message the server sends after the upgrade, the first one included.
 */
export function recordUpgradeWire(s: Socket): WireMessage[] {
  const messages: WireMessage[] = [];
  s.io.engine.once('upgrading', (transport) => {
    const ws = webSocketOfTransport(transport);
    if (!ws) throw new Error('recordUpgradeWire: the upgrade is not to a WebSocket');
    recordInto(ws, messages);
  });
  return messages;
}

function recordInto(ws: WebSocket, messages: WireMessage[]): WireMessage[] {
  let pending = Buffer.alloc(0);
  tcpOf(ws).on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    for (;;) {
      if (pending.length < 2) return;
      const len7 = pending[1] & 0x7f;
      const at = len7 < 126 ? 2 : len7 === 126 ? 4 : 10;
      if (pending.length < at) return;
      const length = len7 < 126 ? len7 : len7 === 126 ? pending.readUInt16BE(2) : pending.readUInt32BE(6);
      if (pending.length < at + length) return;
      messages.push({ compressed: (pending[0] & 0x40) !== 0, opcode: pending[0] & 0x0f, payload: pending.subarray(at, at + length) });
      pending = pending.subarray(at + length);
    }
  });
  return messages;
}

/**
 * A compressed message is a keyframe when it inflates on its own (a fresh inflater, no window), a
 * delta when it needs the window the earlier messages left (its back-references reach into the
 * previous frame: an inflater without that window refuses them).
 */
export function deflateForm(m: WireMessage): 'keyframe' | 'delta' {
  try {
    zlib.inflateRawSync(Buffer.concat([m.payload, Buffer.from([0x00, 0x00, 0xff, 0xff])]), { finishFlush: zlib.constants.Z_SYNC_FLUSH });
    return 'keyframe';
  } catch {
    return 'delta';
  }
}
