// The WebSocket class of the broadcast listener (ws, under engine.io). Two changes to ws:
// - ws's own sends are never compressed. With context takeover, ws would push every Engine.IO
//   packet (pings, acks) through its own deflate stream, and the receiver's window would no
//   longer end with the last match frame, which our delta frames rely on.
// - sendMessage() writes a whole message built once per frame (ws-frame.ts), e.g. one whose payload
//   is already permessage-deflate data (RSV1 set): the same bytes go to every overlay of a match.
import { WebSocket, WebSocketServer, type ServerOptions } from 'ws';
import { sendWholeFrame } from '../internals/ws.js';

export type DeflateMode = 'delta' | 'keyframe' | 'plain';

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

  /**
   * Writes one whole WebSocket message (ws-frame.ts: header and payload in one Buffer, shared by
   * every recipient of the frame): one socket write, nothing allocated per delivery. ws's own
   * sends are never compressed (above), so its Sender has nothing queued that this could overtake.
   */
  sendMessage(message: Buffer): void {
    if (this.readyState !== WebSocket.OPEN) return;
    sendWholeFrame(this, message);
  }
}

/** engine.io's `wsEngine`: ws's server, making BroadcastWebSockets. */
export class BroadcastWebSocketServer extends WebSocketServer {
  constructor(options: ServerOptions, callback?: () => void) {
    super({ ...options, WebSocket: BroadcastWebSocket }, callback);
  }
}
