// Real socket.io-client connections to the service under test: the observer and auxiliary clients
// with the options the real ones pass (docs/client-contract.md 1.3) and their logon packets (docs/client-contract.md 2.2,
// 4.2), the overlay (docs/client-contract.md 5), and plain sockets for what no real client sends.
import { io, type Socket } from 'socket.io-client';

const opened = new Set<Socket>();

type Transports = ('polling' | 'websocket')[];

/** A plain socket: no reconnection unless asked (a test decides what happens after a drop). */
export function connect(url: string, options: { transports?: Transports; reconnection?: boolean; perMessageDeflate?: false } = {}): Socket {
  const socket = io(url, {
    forceNew: true, rejectUnauthorized: false, reconnection: options.reconnection ?? false,
    ...(options.transports ? { transports: options.transports } : {}),
    // An overlay that negotiates no permessage-deflate (the client's default offers it).
    ...(options.perMessageDeflate === false ? { perMessageDeflate: false } : {}),
  } as never);
  opened.add(socket);
  return socket;
}

/**
 * A socket with the observer (and auxiliary) client's options (docs/client-contract.md 1.3): reconnection on,
 * 1 s to 5 s backoff, self-signed certificates accepted; it starts with polling and upgrades.
 * After an automatic reconnection it does not log on again (docs/client-contract.md 1.5).
 */
export function connectObserver(url: string, options: { transports?: Transports; reconnection?: boolean } = {}): Socket {
  const socket = io(url, {
    forceNew: true, rejectUnauthorized: false, reconnection: options.reconnection ?? true, reconnectionDelay: 1000, reconnectionDelayMax: 5000,
    ...(options.transports ? { transports: options.transports } : {}),
  });
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

// ---- logons ---------------------------------------------------------------------------------

export interface Ack { type: string; value: boolean; reason: string }

export const TEAMS = {
  leftTeam: { name: 'Team Alpha', tricode: 'ALP', url: 'https://cdn.example.org/alpha.png', attackStart: true },
  rightTeam: { name: 'Team Bravo', tricode: 'BRV', url: 'https://cdn.example.org/bravo.png', attackStart: false },
};

/**
 * The observer client's obs_logon packet (docs/client-contract.md 2.2, field order as it emits them), a fresh
 * group (empty groupSecret) with both teams filled in; `fields` replace or add members (a member
 * set to undefined is left out of the JSON).
 */
export function observerLogon(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'authenticate', clientVersion: '0.3.3', obsName: 'Observer#EUW', key: '', groupCode: 'K7QX2M', groupSecret: '', ...TEAMS, ...fields };
}

/** The auxiliary client's aux_logon packet (docs/client-contract.md 4.2). */
export function auxLogon(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'aux_authenticate', clientVersion: '0.3.3', name: 'Player#EUW', matchId: '', playerId: '', ...fields };
}

/**
 * Emits a logon event on a connected socket and resolves with its ack (parsed and raw). A plain
 * object payload is sent as its JSON string, as the real clients do (docs/client-contract.md 1.2); pass
 * `{ asObject: true }` to send the object itself.
 */
export async function logon(s: Socket, event: 'obs_logon' | 'aux_logon', payload: unknown, options: { asObject?: boolean; ackMs?: number } = {}): Promise<{ ack: Ack; raw: string }> {
  await connected(s);
  const ackP = nextEvent<string>(s, event === 'obs_logon' ? 'obs_logon_ack' : 'aux_logon_ack', options.ackMs);
  s.emit(event, payload !== null && typeof payload === 'object' && !options.asObject ? JSON.stringify(payload) : payload);
  const raw = await ackP;
  if (typeof raw !== 'string') throw new Error(`the ${event} ack is not a JSON string: ${JSON.stringify(raw)}`);
  return { ack: JSON.parse(raw) as Ack, raw };
}

export interface LoggedOn { socket: Socket; ack: Ack; raw: string }

/** An observer: a socket with the client's options and its obs_logon (observerLogon(fields), or a raw payload). */
export async function observer(url: string, fields: Record<string, unknown> | string = {}, options: { transports?: Transports; reconnection?: boolean; asObject?: boolean } = {}): Promise<LoggedOn> {
  const socket = connectObserver(url, options);
  const { ack, raw } = await logon(socket, 'obs_logon', typeof fields === 'string' ? fields : observerLogon(fields), options);
  return { socket, ack, raw };
}

/** An auxiliary client: a socket with the client's options and its aux_logon (auxLogon(fields), or a raw payload). */
export async function auxClient(url: string, fields: Record<string, unknown> | string = {}, options: { transports?: Transports; reconnection?: boolean; asObject?: boolean } = {}): Promise<LoggedOn> {
  const socket = connectObserver(url, options);
  const { ack, raw } = await logon(socket, 'aux_logon', typeof fields === 'string' ? fields : auxLogon(fields), options);
  return { socket, ack, raw };
}

/**
 * A logon that must be refused: the acks received (raw) and the order of ack and disconnect, and
 * the disconnect reason. The payload is sent as given (strings, numbers, objects: what is tested).
 */
export async function refusedLogon(url: string, event: 'obs_logon' | 'aux_logon', payload: unknown, transports?: Transports): Promise<{ acks: string[]; order: string[]; reason: string }> {
  const s = connect(url, { transports });
  await connected(s);
  const acks: string[] = [];
  const order: string[] = [];
  s.on(event === 'obs_logon' ? 'obs_logon_ack' : 'aux_logon_ack', (a: string) => { acks.push(a); order.push('ack'); });
  const gone = serverDisconnect(s).then((r) => { order.push('disconnect'); return r; });
  s.emit(event, payload);
  const reason = await gone;
  return { acks, order, reason };
}

// ---- overlay ------------------------------------------------------------------------

export interface Overlay {
  socket: Socket;
  /** Every match_data frame received, parsed, and as received. */
  frames: Record<string, unknown>[];
  raw: string[];
  /** The first frame received (now or later) that satisfies pred. */
  waitFor(pred: (f: Record<string, unknown>) => boolean, ms?: number): Promise<Record<string, unknown>>;
}

/** An overlay that logs on to a group and keeps every match_data frame it receives (parsed). */
export async function overlay(url: string, groupCode: string, transports?: Transports, options: { perMessageDeflate?: false } = {}): Promise<Overlay> {
  const socket = connect(url, { transports, ...options });
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

/**
 * An overlay like the real one across a restart or a takeover: reconnects on its own and
 * logs on again at every connect; every `match_data` it gets, in order (closed by closeAll).
 */
export function reconnectingOverlay(url: string, groupCode: string): string[] {
  return overlaySocket(url, groupCode).frames;
}

/**
 * The same, once the service confirmed its logon (`logon_success`): a match played at once after it
 * cannot end (and be removed, right after its final frame) before the overlay joined.
 */
export function joinedOverlay(url: string, groupCode: string): Promise<string[]> {
  const { socket, frames } = overlaySocket(url, groupCode);
  return new Promise((resolve) => socket.once('logon_success', () => resolve(frames)));
}

function overlaySocket(url: string, groupCode: string): { socket: Socket; frames: string[] } {
  const socket = io(url, { forceNew: true, rejectUnauthorized: false, reconnection: true, reconnectionDelay: 100, reconnectionDelayMax: 300 });
  opened.add(socket);
  const frames: string[] = [];
  socket.on('connect', () => socket.emit('logon', JSON.stringify({ groupCode })));
  socket.on('match_data', (f: string) => frames.push(f));
  return { socket, frames };
}

/** The last frame such an overlay got, parsed. */
export const lastFrame = (frames: string[]) => JSON.parse(frames[frames.length - 1]) as Record<string, unknown>;
