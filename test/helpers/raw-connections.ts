// Raw TCP connections that never finish a request, as an attacker opens them: idle (nothing sent),
// half-sent (a partial request head, then nothing: slowloris) and dripping (a partial head, then
// one byte every `dripMs`). Each records when the server closed it, in ms after it connected.
// Also WebSockets that finish the Engine.IO handshake and never send the Socket.IO CONNECT.
// A plain module (no vitest): the connection-abuse tests and bench/connection-abuse.ts use it.
import net from 'node:net';
import WebSocket from 'ws';

export type RawKind = 'idle' | 'partial' | 'drip';

export interface RawConnection {
  kind: RawKind;
  port: number;
  /** ms from connect to the server's close; null while open (or when it never connected). */
  closedAfterMs: number | null;
  /** Whether it connected at all (false: refused by the kernel, e.g. while the listener is stopped). */
  connected: boolean;
  socket: net.Socket;
}

const HEAD = 'GET /socket.io/?EIO=4&transport=polling HTTP/1.1\r\nHost: x\r\nUser-Agent: slow\r\n';

/** Where a flood comes from and goes to: another loopback source (127.0.0.2) or IPv6 (`::1`). */
export interface RawTarget { host?: string; localAddress?: string }

/** Opens `n` connections of `kind` to 127.0.0.1:port (or `target`); resolves once each connected or failed. */
export async function openRaw(port: number, kind: RawKind, n: number, dripMs = 2000, target: RawTarget = {}): Promise<RawConnection[]> {
  const opened = await Promise.all(Array.from({ length: n }, () => new Promise<RawConnection>((resolve) => {
    const socket = net.connect({ port, host: target.host ?? '127.0.0.1', ...(target.localAddress ? { localAddress: target.localAddress } : {}) });
    const c: RawConnection = { kind, port, closedAfterMs: null, connected: false, socket };
    let drip: NodeJS.Timeout | undefined;
    socket.on('error', () => {});
    socket.on('data', () => {}); // a 408 or 404 answer before the close
    socket.once('connect', () => {
      c.connected = true;
      const at = Date.now();
      if (kind !== 'idle') socket.write(HEAD);
      if (kind === 'drip') {
        drip = setInterval(() => socket.write('X'), dripMs);
        drip.unref();
      }
      socket.once('close', () => { c.closedAfterMs = Date.now() - at; });
      resolve(c);
    });
    socket.once('close', () => {
      clearInterval(drip);
      if (!c.connected) resolve(c);
    });
  })));
  return opened;
}

/** Closes what is still open from this side. */
export function destroyAll(connections: RawConnection[]): void {
  for (const c of connections) c.socket.destroy();
}

/** `n` WebSockets that get the Engine.IO open packet and then send nothing; ms from the open packet to the server's close (null: open). */
export async function silentWebSockets(port: number, n: number): Promise<{ closedAfterMs: (number | null)[]; close(): void }> {
  const closedAfterMs: (number | null)[] = Array.from({ length: n }, () => null);
  const sockets: WebSocket[] = [];
  await Promise.all(Array.from({ length: n }, (_, i) => new Promise<void>((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/socket.io/?EIO=4&transport=websocket`, { perMessageDeflate: false });
    sockets.push(ws);
    let at = 0;
    ws.on('message', (data) => { if (data.toString().startsWith('0')) { at = Date.now(); resolve(); } });
    ws.on('error', () => resolve());
    ws.on('close', () => { if (at) closedAfterMs[i] = Date.now() - at; resolve(); });
  })));
  return { closedAfterMs, close: () => { for (const ws of sockets) ws.terminate(); } };
}
