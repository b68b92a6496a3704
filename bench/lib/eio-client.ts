// Minimal Engine.IO v4 / Socket.IO v5 clients over a raw WebSocket (ws), to keep the load
// generator cheap: a real socket.io-client per connection would need most of the machine. The
// WebSocket offers permessage-deflate the way a browser does (client_max_window_bits).
import WebSocket from 'ws';

export interface EioOptions {
  url: string; // http://host:port
  onEvent(event: string, payload: string, rawLength: number): void;
  onOpen?(): void;
  onClose?(): void;
  deflate?: boolean;
}

export class EioClient {
  readonly ws: WebSocket;
  private openedAt = 0;
  private bytesAtOpen = 0;
  connected = false;

  constructor(private readonly options: EioOptions) {
    const url = options.url.replace(/^http/, 'ws') + '/socket.io/?EIO=4&transport=websocket';
    // perMessageDeflate: true offers "permessage-deflate; client_max_window_bits", as browsers do.
    this.ws = new WebSocket(url, { perMessageDeflate: options.deflate !== false });
    this.ws.on('message', (data: WebSocket.RawData) => this.onMessage(data.toString()));
    this.ws.on('close', () => { this.connected = false; options.onClose?.(); });
    this.ws.on('error', () => undefined);
  }

  private onMessage(text: string): void {
    const type = text.charCodeAt(0);
    if (type === 0x30 /* 0 open */) {
      this.ws.send('40');
      return;
    }
    if (type === 0x32 /* 2 ping */) {
      this.ws.send('3');
      return;
    }
    if (type !== 0x34 /* 4 message */) return;
    const sio = text.charCodeAt(1);
    if (sio === 0x30 /* 0 connect */) {
      this.connected = true;
      const socket = (this.ws as unknown as { _socket: { bytesRead: number } })._socket;
      this.bytesAtOpen = socket.bytesRead;
      this.openedAt = Date.now();
      this.options.onOpen?.();
      return;
    }
    if (sio !== 0x32 /* 2 event */) return;
    // 42["event","payload"...]: the event name, then the payload string.
    const nameEnd = text.indexOf('"', 4);
    const event = text.slice(4, nameEnd);
    this.options.onEvent(event, text, text.length);
  }

  /** Bytes received on the wire since the Socket.IO connection opened. */
  bytesSinceOpen(): number {
    const socket = (this.ws as unknown as { _socket?: { bytesRead: number } })._socket;
    return socket ? socket.bytesRead - this.bytesAtOpen : 0;
  }

  emit(event: string, payload: string): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send('42' + JSON.stringify([event, payload]));
  }

  close(): void {
    this.ws.terminate();
  }
}

/** The payload string of a 42["event","payload"] message. */
export function eventPayload(text: string): string {
  return (JSON.parse(text.slice(2)) as [string, string])[1];
}

/** An observer (raw Engine.IO) logged on to `code` with the teams given; resolves once its logon was accepted. */
export function loggedOnObserver(url: string, code: string, key: string, teams: { leftTeam: unknown; rightTeam: unknown }): Promise<EioClient> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`observer ${code}: no logon ack`)), 30_000);
    const c: EioClient = new EioClient({
      url,
      onOpen: () => c.emit('obs_logon', JSON.stringify({
        type: 'authenticate', clientVersion: '0.3.3', obsName: 'Bench', key, groupCode: code, groupSecret: '', leftTeam: teams.leftTeam, rightTeam: teams.rightTeam,
      })),
      onEvent: (event, text) => {
        if (event !== 'obs_logon_ack') return;
        clearTimeout(timer);
        const ack = JSON.parse(eventPayload(text)) as { value: boolean; reason: string };
        if (ack.value) resolve(c); else reject(new Error(`logon refused: ${ack.reason}`));
      },
    });
  });
}
