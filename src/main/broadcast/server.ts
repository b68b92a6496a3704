// Broadcast listener (5200): overlays log on to a group code and receive `match_data`
// snapshots (docs/client-contract.md 5.1).
//
// Socket.IO runs here on node:http with ws rather than on uWS: fan-out cost is dominated by
// compression, and uWS compresses once per recipient (docs/stack-notes.md 3: ~218 µs per delivery). Here each
// frame is compressed once per match: WebSocket overlays whose deflate window ends with the
// match's previous frame get the shard's delta bytes, others get the frame's keyframe, both
// written as pre-compressed permessage-deflate messages (websocket.ts). Long-polling overlays
// get the JSON string through Socket.IO. No connection state recovery: every frame is a full
// snapshot and the overlay logs on again after a reconnect.
//
// Frames come from the FrameBus: the listener subscribes to a group code while an overlay watches
// it, and an overlay that logs on mid-match gets the match's latest frame from the bus. Each frame
// becomes one FramePacket (frame-packet.ts) shared by every overlay of its group; the text of a
// frame that came without it is asked for on the bus and comes back as a FrameText message (the
// group's subscription receives both).
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { Server, type Socket } from 'socket.io';
import type { Config } from '../base/config.js';
import {
  BROADCAST_CLOSE_GRACE_MS, DEFLATE_THRESHOLD_BYTES, DRAINED_DIVISOR, idleSweepMs, MAX_OVERLAY_EVENTS, MAX_GROUP_CODE_LENGTH,
  MAX_POLLING_PACKETS, STALE_CHECK_MS,
} from '../base/limits.js';
import { transportOf, writeBufferLength, type EngineTransport } from '../internals/engineio.js';
import type { Logger } from '../base/log.js';
import { AddressLimiter } from '../sockets/address-limit.js';
import { LocalAdapter } from '../sockets/adapters.js';
import { httpServerOptions, inactivityTimeoutMs } from '../sockets/http-deadlines.js';
import { baseIoOptions, parsePayload } from '../sockets/io-server.js';
import { answerUnknownPath, refuseUnknownUpgrades } from '../sockets/unknown-paths.js';
import type { TlsFiles } from '../internals/uws.js';
import type { Frame, FrameBus, FrameText } from '../frames/index.js';
import { FramePacket } from './frame-packet.js';
import { BroadcastWebSocketServer, type BroadcastWebSocket, type DeflateMode } from './websocket.js';

export interface BroadcastDeps {
  config: Config;
  log: Logger;
  tls: TlsFiles | null;
  frames: FrameBus;
}

interface Overlay {
  socket: Socket;
  groupCode: string | null;
  ws: BroadcastWebSocket | null;
  mode: DeflateMode;
  /** Frame number that ends this peer's deflate window (-1: none). */
  lastFrameNo: number;
  /** Connection time and events received (idle and misbehaving overlays are closed). */
  connectedAt: number;
  events: number;
  /** The newest frame skipped while it did not read: sent once it drained, even if its match is gone by then. */
  skippedFrame?: FramePacket;
  /** The frame it waits for because it needs its text (a FrameText message); a newer frame replaces it. */
  awaiting?: FramePacket;
}

interface Group {
  overlays: Set<Overlay>;
  unsubscribe: () => void;
  /** The packet of the group's latest frame: its messages are shared by the overlays that log on later. */
  latest?: FramePacket;
}

export interface BroadcastCounters {
  deliveries: number;
  deltas: number;
  keyframes: number;
  plain: number;
  polling: number;
  skipped: number;
  /** Bytes handed to overlay sockets (compressed where compressed; before TLS and framing). */
  bytes: number;
}

export class BroadcastServer {
  readonly io: Server;
  readonly http: http.Server;
  readonly counters: BroadcastCounters = { deliveries: 0, deltas: 0, keyframes: 0, plain: 0, polling: 0, skipped: 0, bytes: 0 };
  private readonly log: Logger;
  /** The overlays of each group code, and the code's FrameBus subscription. */
  private readonly groups = new Map<string, Group>();
  private readonly stale = new Set<Overlay>();
  private staleTimer: NodeJS.Timeout | null = null;
  /** Connected overlays that have not logged on yet (closed after IDLE_SOCKET_TIMEOUT_MS). */
  private readonly waiting = new Set<Overlay>();
  /** Every TCP connection, upgraded ones included (close() cuts those that linger). */
  private readonly connections = new Set<import('node:net').Socket>();
  private readonly idleTimer: NodeJS.Timeout;
  readonly addresses: AddressLimiter;
  /** Overlays closed by the service: idle (no logon), misbehaving (too many events) (metrics). */
  readonly closed = { idle: 0, misbehaving: 0 };

  constructor(private readonly deps: BroadcastDeps) {
    this.log = deps.log.child({ module: 'broadcast' });
    const c = deps.config;
    // Paths outside Socket.IO's answer 404 { error } at once, like the other ports (unknown-paths.ts):
    // the request listener is given here, before engine.io attaches and takes it over.
    const deadlines = httpServerOptions(c); // node's own deadlines, on purpose (sockets/http-deadlines.ts)
    this.http = deps.tls
      ? https.createServer({ ...deadlines, cert: fs.readFileSync(deps.tls.certFile), key: fs.readFileSync(deps.tls.keyFile) }, answerUnknownPath)
      : http.createServer(deadlines, answerUnknownPath);
    this.http.setTimeout(inactivityTimeoutMs(c));
    this.io = new Server(this.http, {
      ...baseIoOptions(c, (req, cb) => this.addresses.allowRequest(req, cb)),
      destroyUpgrade: false, // refuseUnknownUpgrades answers them instead
      // Negotiated with context takeover; ws itself never compresses (websocket.ts).
      perMessageDeflate: c.COMPRESSION ? { threshold: DEFLATE_THRESHOLD_BYTES, serverNoContextTakeover: false, serverMaxWindowBits: 15 } : false,
      wsEngine: BroadcastWebSocketServer,
      adapter: LocalAdapter,
    });
    refuseUnknownUpgrades(this.http);
    this.http.on('connection', (socket: import('node:net').Socket) => {
      this.connections.add(socket);
      socket.once('close', () => this.connections.delete(socket));
    });
    this.addresses = new AddressLimiter(c.MAX_SOCKETS_PER_ADDRESS, c.IPV6_PREFIX_LENGTH);
    this.addresses.attach(this.io);
    this.io.on('connection', (socket) => this.onConnection(socket));
    this.idleTimer = setInterval(() => this.closeIdle(Date.now()), idleSweepMs(c.IDLE_SOCKET_TIMEOUT_MS));
    this.idleTimer.unref();
  }

  /** Overlays that connected and never logged on are closed after IDLE_SOCKET_TIMEOUT_MS. */
  private closeIdle(now: number): void {
    for (const f of this.waiting) {
      if (now - f.connectedAt < this.deps.config.IDLE_SOCKET_TIMEOUT_MS) continue;
      this.waiting.delete(f);
      this.closed.idle++;
      f.socket.disconnect(true);
    }
  }

  /** Open overlay sockets: logged on to a group, or not yet (metrics). */
  /** By the `kind` label of `ods_sockets` (its value `frontend` predates the name overlay, and dashboards query it). */
  socketCounts(): { frontend: number; unauthenticated: number } {
    return { frontend: this.overlayCount(), unauthenticated: this.waiting.size };
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
    const overlay: Overlay = { socket, groupCode: null, ws: null, mode: 'plain', lastFrameNo: -1, connectedAt: Date.now(), events: 0 };
    this.waiting.add(overlay);
    socket.onAny(() => {
      if (++overlay.events < MAX_OVERLAY_EVENTS) return;
      this.closed.misbehaving++;
      this.log.info({ socket: socket.id }, 'overlay closed: too many events');
      socket.disconnect(true);
    });
    const useWebSocket = (transport: EngineTransport) => {
      if (transport.name !== 'websocket') return;
      overlay.ws = transport.socket as BroadcastWebSocket;
      overlay.mode = overlay.ws.deflateMode;
      overlay.lastFrameNo = -1;
    };
    useWebSocket(transportOf(socket.conn));
    socket.conn.on('upgrade', useWebSocket);

    socket.on('logon', (payload: unknown) => {
      if (overlay.groupCode !== null) return; // handled once per socket
      const parsed = parsePayload(payload);
      const value = parsed.ok ? parsed.value : undefined;
      const groupCode = value !== null && typeof value === 'object' ? (value as { groupCode?: unknown }).groupCode : undefined;
      if (typeof groupCode !== 'string' || groupCode.length === 0 || groupCode.length > MAX_GROUP_CODE_LENGTH) {
        this.log.info({ socket: socket.id, error: parsed.ok ? 'no string groupCode' : parsed.error }, 'overlay logon ignored');
        return;
      }
      overlay.groupCode = groupCode;
      this.waiting.delete(overlay);
      let group = this.groups.get(groupCode);
      if (!group) {
        const g: Group = { overlays: new Set<Overlay>(), unsubscribe: () => undefined };
        g.unsubscribe = this.deps.frames.subscribe(groupCode, (frame, delta) => this.publish(g, frame, delta), (text) => this.onFrameText(g, text));
        this.groups.set(groupCode, (group = g));
      }
      group.overlays.add(overlay);
      socket.emit('logon_success', JSON.stringify({ groupCode, msg: `Logon succeeded for group code ${groupCode}` }));
      const latest = this.packetOf(group, this.deps.frames.latest(groupCode));
      if (latest) this.deliver(overlay, latest);
    });
    socket.on('disconnect', () => {
      this.stale.delete(overlay);
      this.waiting.delete(overlay);
      if (overlay.groupCode === null) return;
      const group = this.groups.get(overlay.groupCode);
      group?.overlays.delete(overlay);
      if (group && group.overlays.size === 0) {
        group.unsubscribe();
        this.groups.delete(overlay.groupCode);
      }
    });
  }

  /** One frame to every overlay of its group (the FrameBus subscription); the compressed bytes are shared. */
  private publish(group: Group, frame: Frame, delta: string | null): void {
    const packet = new FramePacket(frame, delta, this.deps.frames);
    group.latest = packet;
    for (const overlay of group.overlays) this.deliver(overlay, packet);
    packet.published();
  }

  /** The packet of `frame` (the bus's latest frame of the group): the one its publish made, or a new one. */
  private packetOf(group: Group | undefined, frame: Frame | undefined): FramePacket | undefined {
    if (!group) return undefined;
    if (!frame) return (group.latest = undefined); // the match is gone: its last packet goes
    if (group.latest?.frame !== frame) group.latest = new FramePacket(frame, null, this.deps.frames);
    return group.latest;
  }

  /** The text of a frame of the group that came without it: its packets keep it, the overlays waiting for it get the frame. */
  private onFrameText(group: Group, text: FrameText): void {
    group.latest?.receiveFrameText(text);
    for (const f of group.overlays) {
      const packet = f.awaiting;
      if (packet && packet.receiveFrameText(text) && f.socket.connected) this.deliver(f, packet);
    }
    // An overlay that skipped the frame gets it once drained, the match gone or not (its final frame).
    for (const f of this.stale) if (f.groupCode === text.groupCode) f.skippedFrame?.receiveFrameText(text);
  }

  private deliver(f: Overlay, packet: FramePacket): void {
    const c = this.counters;
    f.awaiting = undefined;
    if (!f.ws) {
      const backlog = writeBufferLength(f.socket.conn);
      if (backlog >= MAX_POLLING_PACKETS) return this.skip(f, packet);
      if (!packet.hasFrameText && !packet.askFrameText()) return this.await(f, packet);
      const text = packet.matchDataJson();
      f.socket.emit('match_data', text);
      c.bytes += text.length;
      c.polling++;
      c.deliveries++;
      // (lastFrameNo stays the websocket's: a delta follows only a frame sent on the same deflate context.)
      f.skippedFrame = undefined;
      return;
    }
    if (f.ws.bufferedAmount > this.deps.config.FRONTEND_MAX_BUFFERED_BYTES) return this.skip(f, packet);
    const delta = f.mode === 'delta' && f.lastFrameNo === packet.frameNo - 1 ? packet.deltaMessage() : null;
    if (delta) {
      f.ws.sendMessage(delta);
      c.bytes += delta.byteLength;
      c.deltas++;
    } else if (!packet.hasFrameText && !packet.askFrameText()) {
      return this.await(f, packet);
    } else if (f.mode === 'plain') {
      const message = packet.plainMessage();
      f.ws.sendMessage(message);
      c.bytes += message.byteLength;
      c.plain++;
    } else {
      const keyframe = packet.keyframeMessage();
      f.ws.sendMessage(keyframe);
      c.bytes += keyframe.byteLength;
      c.keyframes++;
    }
    f.lastFrameNo = packet.frameNo;
    // A frame skipped before this one is older: never sent after it (retryStale), also once the match is gone.
    f.skippedFrame = undefined;
    c.deliveries++;
  }

  /** The frame goes to `f` once its text comes (a FrameText message, onFrameText), unless a newer one went meanwhile. */
  private await(f: Overlay, packet: FramePacket): void {
    f.awaiting = packet;
  }

  /** An overlay that does not read: skip frames, and send the latest one once it has drained. */
  private skip(f: Overlay, packet: FramePacket): void {
    this.counters.skipped++;
    f.skippedFrame = packet;
    this.stale.add(f);
    if (!this.staleTimer) {
      this.staleTimer = setInterval(() => this.retryStale(), STALE_CHECK_MS);
      this.staleTimer.unref();
    }
  }

  private retryStale(): void {
    for (const f of this.stale) {
      const drained = f.ws
        ? f.ws.bufferedAmount <= this.deps.config.FRONTEND_MAX_BUFFERED_BYTES / DRAINED_DIVISOR
        : writeBufferLength(f.socket.conn) === 0;
      if (!drained) continue;
      this.stale.delete(f);
      // The match's latest frame; the last one skipped when the match is gone meanwhile (its final frame).
      const latest = (f.groupCode !== null ? this.packetOf(this.groups.get(f.groupCode), this.deps.frames.latest(f.groupCode)) : undefined) ?? f.skippedFrame;
      f.skippedFrame = undefined;
      if (latest && latest.frameNo !== f.lastFrameNo) this.deliver(f, latest);
    }
    if (this.stale.size === 0 && this.staleTimer) {
      clearInterval(this.staleTimer);
      this.staleTimer = null;
    }
  }

  /** The most bytes queued in any logged-on overlay's WebSocket now (metrics: frames are skipped past FRONTEND_MAX_BUFFERED_BYTES). */
  maxBufferedBytes(): number {
    let max = 0;
    for (const g of this.groups.values()) for (const f of g.overlays) if (f.ws) max = Math.max(max, f.ws.bufferedAmount);
    return max;
  }

  /** The slowest overlay of a group (link health): the most bytes queued, and how many are skipping frames now. */
  slowestOverlay(groupCode: string): { bufferedBytes: number; skipping: number } {
    let bufferedBytes = 0, skipping = 0;
    for (const f of this.groups.get(groupCode)?.overlays ?? []) {
      if (f.ws) bufferedBytes = Math.max(bufferedBytes, f.ws.bufferedAmount);
      if (f.skippedFrame) skipping++;
    }
    return { bufferedBytes, skipping };
  }

  /** Overlays currently logged on to a group. */
  overlayCount(groupCode?: string): number {
    if (groupCode !== undefined) return this.groups.get(groupCode)?.overlays.size ?? 0;
    let n = 0;
    for (const g of this.groups.values()) n += g.overlays.size;
    return n;
  }

  /** Stops accepting connections (shutdown); open ones keep getting frames until close(). */
  stopListening(): void {
    this.http.close();
  }

  async close(): Promise<void> {
    clearInterval(this.idleTimer);
    if (this.staleTimer) clearInterval(this.staleTimer);
    const closing = this.io.close(); // also closes the HTTP server, once every connection is gone
    // A peer that does not read never completes the WebSocket closing handshake: cut it after a second.
    const timer = setTimeout(() => { for (const socket of this.connections) socket.destroy(); }, BROADCAST_CLOSE_GRACE_MS);
    await closing;
    clearTimeout(timer);
  }
}
