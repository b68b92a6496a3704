// Real socket.io-client connections to the service under test.
import { io, type Socket } from 'socket.io-client';

const opened = new Set<Socket>();

export function connect(url: string, options: { transports?: ('polling' | 'websocket')[]; reconnection?: boolean } = {}): Socket {
  const socket = io(url, { forceNew: true, rejectUnauthorized: false, reconnection: options.reconnection ?? false, ...(options.transports ? { transports: options.transports } : {}) });
  opened.add(socket);
  return socket;
}

export function closeAll(): void {
  for (const s of opened) s.close();
  opened.clear();
}

export function connected(s: Socket): Promise<void> {
  return new Promise((resolve, reject) => {
    if (s.connected) return resolve();
    s.once('connect', () => resolve());
    s.once('connect_error', reject);
  });
}

// Deadlines: generous (the service works under load; a deadline costs nothing when the event comes).
export function nextEvent<T = string>(s: Socket, event: string, ms = 15_000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event} within ${ms} ms`)), ms);
    s.once(event, (payload: T) => { clearTimeout(timer); resolve(payload); });
  });
}

/** Resolves once the socket is closed by the server. */
export function serverDisconnect(s: Socket, ms = 15_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not disconnected within ${ms} ms`)), ms);
    s.once('disconnect', (reason: string) => { clearTimeout(timer); resolve(reason); });
  });
}

/** A frontend that logs on to a group and keeps every match_data frame it receives (parsed). */
export async function frontend(url: string, groupCode: string, transports?: ('polling' | 'websocket')[]): Promise<{ socket: Socket; frames: Record<string, unknown>[]; raw: string[]; waitFor(pred: (f: Record<string, unknown>) => boolean, ms?: number): Promise<Record<string, unknown>> }> {
  const socket = connect(url, { transports });
  const frames: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const waiters: { pred: (f: Record<string, unknown>) => boolean; resolve: (f: Record<string, unknown>) => void }[] = [];
  socket.on('match_data', (data: string) => {
    raw.push(data);
    const frame = JSON.parse(data) as Record<string, unknown>;
    frames.push(frame);
    for (let i = waiters.length - 1; i >= 0; i--) if (waiters[i].pred(frame)) { waiters[i].resolve(frame); waiters.splice(i, 1); }
  });
  await connected(socket);
  const ok = nextEvent(socket, 'logon_success');
  socket.emit('logon', JSON.stringify({ groupCode }));
  await ok;
  return {
    socket, frames, raw,
    waitFor(pred, ms = 15_000) {
      const hit = frames.find(pred);
      if (hit) return Promise.resolve(hit);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching frame within ${ms} ms (${frames.length} frames)`)), ms);
        waiters.push({ pred, resolve: (f) => { clearTimeout(timer); resolve(f); } });
      });
    },
  };
}
