// Plays a replay into a running service as the real observer client would: socket.io-client,
// obs_logon with the header's fields, then every record as an obs_data JSON string, paced by the
// playback engine the service's rehearsals use too (src/playback/playback.ts).
import { io, type Socket } from 'socket.io-client';
import { Playback } from '../playback/playback.js';
import type { Replay } from '../playback/replay-file.js';

export interface ReplayOptions {
  url: string;
  key: string;
  /** 'instant' = as fast as the socket takes it; a number = recorded gaps divided by it. */
  pace: 'instant' | number;
  /** Override the header's group code (several copies of one replay side by side). */
  groupCode?: string;
  groupSecret?: string;
  clientVersion?: string;
  /** Stop after this many records (for split replays). */
  from?: number;
  to?: number;
  /** Reuse an already connected socket. */
  socket?: Socket;
  onProgress?(sent: number, total: number): void;
}

export interface ReplayResult {
  socket: Socket;
  secret: string;
  sent: number;
}

export function connectObserver(url: string): Socket {
  return io(url, { reconnection: true, reconnectionDelay: 200, reconnectionDelayMax: 1000, rejectUnauthorized: false, forceNew: true });
}

export function logon(socket: Socket, replay: Replay, options: Pick<ReplayOptions, 'key' | 'groupCode' | 'groupSecret' | 'clientVersion'>): Promise<{ value: boolean; reason: string }> {
  const h = replay.header;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no obs_logon_ack within 10 s')), 10_000);
    socket.once('obs_logon_ack', (msg: string) => {
      clearTimeout(timer);
      resolve(JSON.parse(msg) as { value: boolean; reason: string });
    });
    socket.emit('obs_logon', JSON.stringify({
      type: 'authenticate',
      clientVersion: options.clientVersion ?? h.clientVersion ?? '0.3.3',
      obsName: h.obsName,
      key: options.key,
      groupCode: options.groupCode ?? h.groupCode,
      groupSecret: options.groupSecret ?? '',
      leftTeam: h.leftTeam,
      rightTeam: h.rightTeam,
      ...(h.toolsData ? { toolsData: h.toolsData } : {}),
    }));
  });
}

/**
 * Sends records [from, to) of the replay as obs_data through the playback engine (src/playback);
 * resolves once they are handed to the socket.
 */
export function sendRecords(socket: Socket, replay: Replay, options: Pick<ReplayOptions, 'pace' | 'groupCode' | 'from' | 'to' | 'onProgress'>): Promise<number> {
  const from = options.from ?? 0;
  const to = Math.min(options.to ?? replay.records.length, replay.records.length);
  const records = replay.records.slice(from, to);
  let sent = 0;
  return new Promise((resolve) => {
    const playback = new Playback({
      times: records.map((r) => Number(r.timestamp)),
      pace: options.pace,
      transport: {
        deliver(a, b) {
          for (let i = a; i < b; i++) {
            const record = options.groupCode && 'groupCode' in records[i] ? { ...records[i], groupCode: options.groupCode } : records[i];
            socket.emit('obs_data', JSON.stringify(record));
            sent++;
            options.onProgress?.(sent, records.length);
          }
        },
      },
      onEnd: () => resolve(sent),
    });
    playback.start();
  });
}

export async function playReplay(replay: Replay, options: ReplayOptions): Promise<ReplayResult> {
  const socket = options.socket ?? connectObserver(options.url);
  const ack = await logon(socket, replay, options);
  if (!ack.value) {
    socket.close();
    throw new Error(`logon refused: ${ack.reason}`);
  }
  const sent = await sendRecords(socket, replay, options);
  return { socket, secret: ack.reason, sent };
}
