// Broadcast listener (5200): overlay frontends log on to a group code and receive `match_data`
// snapshots (clients.md 5.1).
//
// Socket.IO runs here on node:http with ws rather than on uWS: fan-out cost is dominated by
// compression, and uWS compresses once per recipient (stack.md: ~218 µs per delivery). Here each
// frame is compressed once per match: WebSocket frontends whose deflate window ends with the
// match's previous frame get the shard's delta bytes, others get the frame's keyframe, both
// written as pre-compressed permessage-deflate messages (websocket.ts). Long-polling frontends
// get the JSON string through Socket.IO. No connection state recovery: every frame is a full
// snapshot and the frontend logs on again after a reconnect.
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { Server, type Socket } from 'socket.io';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { LocalAdapter } from '../sockets/adapters.js';
import { parsePayload } from '../sockets/io-server.js';
import type { TlsFiles } from '../uws.js';
import type { FramePacket } from './frame.js';
import { BroadcastWebSocketServer, type BroadcastWebSocket, type DeflateMode } from './websocket.js';

export interface BroadcastDeps {
  config: Config;
  log: Logger;
  tls: TlsFiles | null;
  /** The latest frame of a live match, for a frontend that logs on mid-match. */
  latestFrame(groupCode: string): FramePacket | undefined;
}

/** A frontend with more than this queued is skipped; it gets the latest frame once it drained. */
const MAX_BUFFERED_BYTES = 256 * 1024;
const MAX_POLLING_PACKETS = 4;
const STALE_CHECK_MS = 50;

interface Frontend {
  socket: Socket;
  groupCode: string | null;
  ws: BroadcastWebSocket | null;
  mode: DeflateMode;
  /** Frame number that ends this peer's deflate window (-1: none). */
  lastSeq: number;
}

export interface BroadcastCounters {
  deliveries: number;
  deltas: number;
  keyframes: number;
  plain: number;
  polling: number;
  skipped: number;
  /** Bytes handed to frontend sockets (compressed where compressed; before TLS and framing). */
  bytes: number;
}

export class BroadcastServer {
  readonly io: Server;
  readonly http: http.Server;
  readonly counters: BroadcastCounters = { deliveries: 0, deltas: 0, keyframes: 0, plain: 0, polling: 0, skipped: 0, bytes: 0 };
  private readonly log: Logger;
  private readonly groups = new Map<string, Set<Frontend>>();
  private readonly stale = new Set<Frontend>();
  private staleTimer: NodeJS.Timeout | null = null;

  constructor(private readonly deps: BroadcastDeps) {
    this.log = deps.log.child({ module: 'broadcast' });
    const c = deps.config;
    this.http = deps.tls
      ? https.createServer({ cert: fs.readFileSync(deps.tls.certFile), key: fs.readFileSync(deps.tls.keyFile) })
      : http.createServer();
    this.io = new Server(this.http, {
      path: '/socket.io/',
      serveClient: false,
      transports: ['polling', 'websocket'],
      cors: { origin: '*' },
      pingInterval: 25_000,
      pingTimeout: 20_000,
      maxHttpBufferSize: c.MAX_MESSAGE_BYTES,
      httpCompression: c.COMPRESSION ? { threshold: 1024 } : false,
      // Negotiated with context takeover; ws itself never compresses (websocket.ts).
      perMessageDeflate: c.COMPRESSION ? { threshold: 1024, serverNoContextTakeover: false, serverMaxWindowBits: 15 } : false,
      wsEngine: BroadcastWebSocketServer,
      adapter: LocalAdapter,
    });
    this.io.on('connection', (socket) => this.onConnection(socket));
  }

  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.http.once('error', reject);
      this.http.listen(port, host, () => {
        this.http.off('error', reject);
        resolve((this.http.address() as AddressInfo).port);
      });
    });
  }

  private onConnection(socket: Socket): void {
    const frontend: Frontend = { socket, groupCode: null, ws: null, mode: 'plain', lastSeq: -1 };
    const useWebSocket = (transport: { name: string; socket?: unknown }) => {
      if (transport.name !== 'websocket') return;
      frontend.ws = transport.socket as BroadcastWebSocket;
      frontend.mode = frontend.ws.deflateMode;
      frontend.lastSeq = -1;
    };
    useWebSocket(socket.conn.transport as unknown as { name: string; socket?: unknown });
    socket.conn.on('upgrade', useWebSocket);

    socket.on('logon', (payload: unknown) => {
      if (frontend.groupCode !== null) return; // handled once per socket
      const parsed = parsePayload(payload);
      const groupCode = parsed.ok ? (parsed.value as { groupCode?: unknown }).groupCode : undefined;
      if (typeof groupCode !== 'string' || groupCode.length === 0) {
        this.log.info({ socket: socket.id, error: parsed.ok ? 'no string groupCode' : parsed.error }, 'frontend logon ignored');
        return;
      }
      frontend.groupCode = groupCode;
      let group = this.groups.get(groupCode);
      if (!group) this.groups.set(groupCode, (group = new Set()));
      group.add(frontend);
      socket.emit('logon_success', JSON.stringify({ groupCode, msg: `Logon succeeded for group code ${groupCode}` }));
      const latest = this.deps.latestFrame(groupCode);
      if (latest) this.deliver(frontend, latest);
    });
    socket.on('disconnect', () => {
      this.stale.delete(frontend);
      if (frontend.groupCode === null) return;
      const group = this.groups.get(frontend.groupCode);
      group?.delete(frontend);
      if (group && group.size === 0) this.groups.delete(frontend.groupCode);
    });
  }

  /** One frame to every frontend of its group; the compressed bytes are shared. */
  publish(packet: FramePacket): void {
    const group = this.groups.get(packet.groupCode);
    if (!group) return;
    for (const frontend of group) this.deliver(frontend, packet);
  }

  private deliver(f: Frontend, packet: FramePacket): void {
    const c = this.counters;
    if (!f.ws) {
      const backlog = (f.socket.conn as unknown as { writeBuffer: unknown[] }).writeBuffer.length;
      if (backlog >= MAX_POLLING_PACKETS) return this.skip(f);
      const text = packet.text();
      f.socket.emit('match_data', text);
      c.bytes += text.length;
      c.polling++;
      c.deliveries++;
      return;
    }
    if (f.ws.bufferedAmount > MAX_BUFFERED_BYTES) return this.skip(f);
    if (f.mode === 'delta' && packet.delta && f.lastSeq === packet.seq - 1) {
      f.ws.sendRaw(packet.delta, true);
      c.bytes += packet.delta.byteLength;
      c.deltas++;
    } else if (f.mode === 'plain') {
      f.ws.sendRaw(packet.wire, false);
      c.bytes += packet.wire.byteLength;
      c.plain++;
    } else {
      const keyframe = packet.keyframe();
      f.ws.sendRaw(keyframe, true);
      c.bytes += keyframe.byteLength;
      c.keyframes++;
    }
    f.lastSeq = packet.seq;
    c.deliveries++;
  }

  /** A frontend that does not read: skip frames, and send the latest one once it has drained. */
  private skip(f: Frontend): void {
    this.counters.skipped++;
    this.stale.add(f);
    if (!this.staleTimer) {
      this.staleTimer = setInterval(() => this.retryStale(), STALE_CHECK_MS);
      this.staleTimer.unref();
    }
  }

  private retryStale(): void {
    for (const f of this.stale) {
      const drained = f.ws
        ? f.ws.bufferedAmount <= MAX_BUFFERED_BYTES / 4
        : (f.socket.conn as unknown as { writeBuffer: unknown[] }).writeBuffer.length === 0;
      if (!drained) continue;
      this.stale.delete(f);
      const latest = f.groupCode !== null ? this.deps.latestFrame(f.groupCode) : undefined;
      if (latest && latest.seq !== f.lastSeq) this.deliver(f, latest);
    }
    if (this.stale.size === 0 && this.staleTimer) {
      clearInterval(this.staleTimer);
      this.staleTimer = null;
    }
  }

  /** Frontends currently logged on to a group. */
  frontendCount(groupCode?: string): number {
    if (groupCode !== undefined) return this.groups.get(groupCode)?.size ?? 0;
    let n = 0;
    for (const g of this.groups.values()) n += g.size;
    return n;
  }

  async close(): Promise<void> {
    if (this.staleTimer) clearInterval(this.staleTimer);
    await this.io.close(); // also closes the HTTP server
  }
}
