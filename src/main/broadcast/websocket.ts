// The WebSocket class of the broadcast listener (ws, under engine.io). Two changes to ws:
// - ws's own sends are never compressed. With context takeover, ws would push every Engine.IO
//   packet (pings, acks) through its own deflate stream, and the receiver's window would no
//   longer end with the last match frame, which our delta frames rely on.
// - sendDeflated() writes a message whose payload is already permessage-deflate data (RSV1 set):
//   the same bytes go to every frontend of a match.
import { WebSocket, WebSocketServer, type ServerOptions } from 'ws';

type Sender = { sendFrame(list: Buffer[], cb?: (err?: Error) => void): void };

export type DeflateMode = 'delta' | 'keyframe' | 'plain';

const header = (length: number, rsv1: boolean): Buffer => {
  const first = 0x80 | (rsv1 ? 0x40 : 0) | 0x01; // FIN, RSV1 when compressed, text opcode
  if (length < 126) return Buffer.from([first, length]);
  if (length < 65536) {
    const b = Buffer.allocUnsafe(4);
    b[0] = first; b[1] = 126; b.writeUInt16BE(length, 2);
    return b;
  }
  const b = Buffer.allocUnsafe(10);
  b[0] = first; b[1] = 127; b.writeUInt32BE(0, 2); b.writeUInt32BE(length, 6);
  return b;
};

export class BroadcastWebSocket extends WebSocket {
  override send(data: unknown, options?: unknown, cb?: unknown): void {
    if (typeof options === 'function') { cb = options; options = {}; }
    super.send(data as string, { ...(options as object), compress: false }, cb as (err?: Error) => void);
  }

  /**
   * How frames can be compressed for this peer: 'delta' (permessage-deflate with the full window
   * and context takeover), 'keyframe' (deflate negotiated without context takeover: each message
   * stands alone), or 'plain' (no deflate, or a reduced server window).
   */
  get deflateMode(): DeflateMode {
    const ext = this.extensions;
    if (!ext.includes('permessage-deflate')) return 'plain';
    const bits = /server_max_window_bits=(\d+)/.exec(ext);
    if (bits && Number(bits[1]) < 15) return 'plain';
    return ext.includes('server_no_context_takeover') ? 'keyframe' : 'delta';
  }

  /** Writes one text message: `payload` is deflate data when `compressed`, else the text bytes. */
  sendRaw(payload: Uint8Array, compressed: boolean): void {
    if (this.readyState !== WebSocket.OPEN) return;
    const sender = (this as unknown as { _sender: Sender })._sender;
    sender.sendFrame([header(payload.length, compressed), payload as Buffer]);
  }
}

/** engine.io's `wsEngine`: ws's server, making BroadcastWebSockets. */
export class BroadcastWebSocketServer extends WebSocketServer {
  constructor(options: ServerOptions, callback?: () => void) {
    super({ ...options, WebSocket: BroadcastWebSocket }, callback);
  }
}
