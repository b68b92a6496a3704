// An overlay that only counts its frames: Engine.IO v4 / Socket.IO v5 over a raw WebSocket on a TCP
// socket, permessage-deflate negotiated as a browser does (so the service sends it deltas), but
// nothing inflated: every compressed message after the logon is a match_data frame (the broadcast
// listener compresses nothing else), counted with its bytes on the wire. A generator that inflates
// every frame of every overlay saturates its core near M=2,000 (issue 20); the latency probes stay
// on full clients (eio-client.ts), these are the rest.
import crypto from 'node:crypto';
import net from 'node:net';

export interface FrameCounterOptions {
  url: string; // http://host:port
  groupCode: string;
  /** A match_data frame arrived (compressed: a delta or a keyframe), `bytes` on the wire. */
  onFrame(bytes: number): void;
}

const MASK = Buffer.alloc(4); // a zero mask: the frame bytes stay as they are (servers only check the bit)

/** One masked client text frame. */
function clientFrame(text: string): Buffer {
  const body = Buffer.from(text);
  const n = body.length;
  const head = n < 126 ? Buffer.from([0x81, 0x80 | n]) : Buffer.from([0x81, 0x80 | 126, n >> 8, n & 0xff]);
  return Buffer.concat([head, MASK, body]);
}

const PONG = clientFrame('3');
const CONNECT = clientFrame('40');

export class FrameCounter {
  private readonly socket: net.Socket;
  private buf: Buffer | null = null;
  private upgraded = false;
  private logonSent = false;
  connected = false;
  /** Bytes read once the logon was sent: what the frames cost on the wire from then on. */
  private bytesAtLogon = 0;

  constructor(private readonly options: FrameCounterOptions) {
    const u = new URL(options.url);
    this.socket = net.connect(Number(u.port), u.hostname);
    this.socket.setNoDelay(true);
    this.socket.on('connect', () => {
      this.socket.write(
        `GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nHost: ${u.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${crypto.randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n` +
        'Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n');
    });
    this.socket.on('data', (chunk) => this.onData(chunk));
    this.socket.on('error', () => undefined);
    this.socket.on('close', () => { this.connected = false; });
  }

  private onData(chunk: Buffer): void {
    let b = this.buf ? Buffer.concat([this.buf, chunk]) : chunk;
    this.buf = null;
    if (!this.upgraded) {
      const end = b.indexOf('\r\n\r\n');
      if (end < 0) { this.buf = b; return; }
      this.upgraded = true;
      b = b.subarray(end + 4);
    }
    let i = 0;
    while (b.length - i >= 2) {
      const b0 = b[i];
      let len = b[i + 1] & 0x7f;
      let head = 2;
      if (len === 126) { if (b.length - i < 4) break; len = b.readUInt16BE(i + 2); head = 4; }
      else if (len === 127) { if (b.length - i < 10) break; len = Number(b.readBigUInt64BE(i + 2)); head = 10; }
      if (b.length - i < head + len) break;
      if (b0 & 0x40) this.options.onFrame(head + len); // RSV1: compressed, a match_data frame
      else if ((b0 & 0x0f) === 1) this.onText(b.toString('latin1', i + head, i + head + Math.min(len, 2)));
      else if ((b0 & 0x0f) === 8) { this.socket.destroy(); return; }
      i += head + len;
    }
    if (i < b.length) this.buf = b.subarray(i);
  }

  /** An uncompressed text message's first two characters: Engine.IO open, ping, Socket.IO connect. */
  private onText(start: string): void {
    if (start[0] === '0') this.socket.write(CONNECT);
    else if (start[0] === '2') this.socket.write(PONG);
    else if (start === '40' && !this.logonSent) {
      this.logonSent = true;
      this.connected = true;
      this.bytesAtLogon = this.socket.bytesRead;
      this.socket.write(clientFrame('42' + JSON.stringify(['logon', JSON.stringify({ groupCode: this.options.groupCode })])));
    }
  }

  bytesSinceOpen(): number {
    return this.socket.bytesRead - this.bytesAtLogon;
  }

  close(): void {
    this.socket.destroy();
  }
}
