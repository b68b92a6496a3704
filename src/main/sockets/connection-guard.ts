// MAX_CONNECTIONS_PER_ADDRESS: raw TCP connections per remote address (address-key.ts: an IPv6
// address by its prefix), on each of the three ports (docs/reliability.md, "Connection abuse").
// MAX_SOCKETS_PER_ADDRESS (address-limit.ts) only counts Engine.IO sessions; this cap is for the
// connections that never say anything: a connection that completes a request is a client, and a
// venue's reconnect storm (hundreds of PCs behind one address) must get through, while a flood of
// idle or half-sent connections from one address is closed at once, before a byte of it is read.
//
// node:http (broadcast): exact. The `connection` event and the socket's first request (or upgrade)
// and `close` give the connections each address holds that have not yet completed a request; one
// past the cap is closed at once. A connection that completed a request no longer counts.
// uWS (ingestion, REST): its `filter` hook sees every connection open and close but gives no
// address at close and no identity to match a later request to its connection (probed on uws-pack
// 20.0.8), so there each address has a token bucket (address-buckets.ts): a burst of the cap, refilled
// at the cap per UWS_WINDOW_MS, continuously; a refused connection takes no token (retries do not
// extend a lockout). On the ingestion port a connection that proved to be a client gives its token
// back: a polling request sent with `Connection: close` (one request per connection: what the Node
// clients send, a new connection for each request, 5 per client to connect and upgrade: measured),
// a WebSocket upgrade, a WebSocket-only handshake; give-backs have their own allowance of the same
// size, so an address can hold at most about four times the cap of silent connections on a uWS port
// (twice without requests), each closed by uWS's deadline.
//
// Behind a reverse proxy (TRUST_PROXY=true) every connection comes from the proxy: the cap is off
// (the proxy must never be locked out); limit per client at the proxy (nginx `limit_conn`).
import type net from 'node:net';
import type { Logger } from '../base/log.js';
import type { TemplatedApp } from '../internals/uws.js';
import { AddressBuckets } from './address-buckets.js';
import { addressKey } from './address-key.js';

/** At most one log line per listener this often about refused connections (the rest are counted). */
export const GUARD_LOG_INTERVAL_MS = 10_000;
/** uWS's deadline for a connection without a complete request: its HTTP idle timeout (10 s) rounded up to its 4 s timer tick; the bucket's refill period. */
export const UWS_WINDOW_MS = 12_000;
/** Addresses (keys) the uWS buckets track at most (address-buckets.ts: evicts those that behaved first). */
export const MAX_TRACKED_ADDRESSES = 100_000;

export type Listener = 'ingest' | 'rest' | 'broadcast';

/** Set while the process is out of descriptors (descriptor-watch.ts): every new connection is closed at once. */
export interface SheddingState { shedding: boolean }

/** The part of an Engine.IO server the ingestion guard listens to: new sessions, upgrades, polling requests answered. */
export interface EngineEvents {
  on(event: 'connection', fn: (conn: { remoteAddress?: string; transport?: { name?: string }; once(event: 'upgrade', fn: () => void): void }) => void): unknown;
  on(event: 'headers', fn: (headers: unknown, req: { headers?: Record<string, string | undefined>; connection?: { remoteAddress?: string } }) => void): unknown;
}

export class ConnectionGuard {
  /** Connections closed at once: their address held its share; the process was out of descriptors. */
  readonly refused = { address: 0, descriptors: 0 };
  /** Open TCP connections on this listener (exact on both kinds of server). */
  open = 0;
  /** node:http: connections without a complete request yet, by address key. */
  private readonly pending = new Map<string, number>();
  /** uWS: a token bucket per address key. */
  readonly buckets: AddressBuckets;
  private pendingLog = 0;
  private lastLogAt = -Infinity;

  constructor(readonly listener: Listener, private readonly max: number, private readonly log: Logger, private readonly state: SheddingState, private readonly v6PrefixLength = 64) {
    this.buckets = new AddressBuckets(Math.max(1, max), UWS_WINDOW_MS, MAX_TRACKED_ADDRESSES);
  }

  /** node:http / https: counts each connection until its first request (or its close); closes one past the cap. */
  attachNet(server: net.Server): void {
    const keys = new WeakMap<net.Socket, string>();
    /** The TCP socket under a TLS one. */
    const tcp = (socket: net.Socket): net.Socket => (socket as { _parent?: net.Socket })._parent ?? socket;
    const settle = (socket: net.Socket) => {
      const key = keys.get(socket);
      if (key === undefined) return;
      keys.delete(socket);
      const n = (this.pending.get(key) ?? 1) - 1;
      if (n <= 0) this.pending.delete(key);
      else this.pending.set(key, n);
    };
    server.on('connection', (socket: net.Socket) => {
      if (this.state.shedding) {
        socket.destroy();
        this.refused.descriptors++;
        return;
      }
      const key = addressKey(socket.remoteAddress, this.v6PrefixLength);
      if (this.max > 0) {
        if ((this.pending.get(key) ?? 0) >= this.max) {
          socket.destroy();
          this.refuse(key);
          return;
        }
        this.pending.set(key, (this.pending.get(key) ?? 0) + 1);
        keys.set(socket, key);
      }
      this.open++;
      socket.once('close', () => {
        this.open--;
        settle(socket);
      });
    });
    server.on('request', (req: { socket: net.Socket }) => settle(tcp(req.socket)));
    server.on('upgrade', (_req: unknown, socket: net.Socket) => settle(tcp(socket)));
  }

  /** uWS: a token bucket per address; closes a connection whose address has no token left. */
  attachUws(app: TemplatedApp): void {
    app.filter((res, count) => {
      if (count < 0) {
        this.open--;
        return;
      }
      this.open++;
      if (this.state.shedding) {
        res.close(); // uWS calls this filter again with -1 at once
        this.refused.descriptors++;
        return;
      }
      if (this.max === 0) return;
      const key = addressKey(Buffer.from(res.getRemoteAddressAsText()).toString(), this.v6PrefixLength);
      if (!this.buckets.take(key)) {
        res.close(); // uWS calls this filter again with -1 at once
        this.refuse(key);
      }
    });
  }

  /** Ingestion: connections that proved to be clients give their address its token back (header comment). */
  attachEngine(engine: EngineEvents): void {
    if (this.max === 0) return;
    engine.on('connection', (conn) => {
      const key = addressKey(conn.remoteAddress, this.v6PrefixLength);
      if (conn.transport?.name === 'websocket') this.buckets.giveBack(key);
      conn.once('upgrade', () => this.buckets.giveBack(key));
    });
    engine.on('headers', (_headers, req) => {
      if (req.headers?.connection?.toLowerCase() !== 'close') return;
      this.buckets.giveBack(addressKey(req.connection?.remoteAddress, this.v6PrefixLength));
    });
  }

  private refuse(key: string): void {
    this.refused.address++;
    this.pendingLog++;
    const now = Date.now();
    if (now - this.lastLogAt < GUARD_LOG_INTERVAL_MS) return;
    this.log.warn({ module: 'connection-guard', listener: this.listener, address: key, refused: this.pendingLog, max: this.max }, 'connections closed: too many from one address (MAX_CONNECTIONS_PER_ADDRESS)');
    this.pendingLog = 0;
    this.lastLogAt = now;
  }
}
