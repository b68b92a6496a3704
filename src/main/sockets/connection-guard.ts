// MAX_CONNECTIONS_PER_ADDRESS: raw TCP connections per remote address, on each of the three ports
// (docs/reliability.md, "Connection abuse"). MAX_SOCKETS_PER_ADDRESS (address-limit.ts) only counts
// Engine.IO sessions, so a peer that opens connections and never finishes a request was not counted
// at all; here every accepted connection counts, and one past the address's share is closed at once,
// before a byte of it is read.
//
// node:http (broadcast): the `connection` event and the socket's `close` give an exact count of the
// connections each address holds. uWS (ingestion, REST): its `filter` hook sees every connection open
// and close, but gives no address at close (the descriptor is gone), so there the count is of the
// connections the address OPENED within the last window (the uWS deadline, 12 s: an idle or half-sent
// one is closed by then, so the window bounds what it can still hold; long-lived WebSockets are
// capped by MAX_SOCKETS_PER_ADDRESS instead).
//
// Behind a reverse proxy (TRUST_PROXY=true) every connection comes from the proxy: the cap is off
// (the proxy must never be locked out); limit per client at the proxy (nginx `limit_conn`).
import type net from 'node:net';
import type { Logger } from '../base/log.js';
import type { TemplatedApp } from '../internals/uws.js';
import { normalizeAddress } from './address-limit.js';

/** At most one log line per listener this often about refused connections (the rest are counted). */
export const GUARD_LOG_INTERVAL_MS = 10_000;
/** uWS's connection-opened window: its HTTP idle timeout (10 s) rounded up to its 4 s timer tick. */
export const UWS_WINDOW_MS = 12_000;
/** Addresses kept in the uWS window map at most (an attacker with many addresses cannot grow it unbounded). */
const MAX_TRACKED_ADDRESSES = 100_000;

export type Listener = 'ingest' | 'rest' | 'broadcast';

/** Set while the process is out of descriptors (descriptor-watch.ts): every new connection is closed at once. */
export interface SheddingState { shedding: boolean }

export class ConnectionGuard {
  /** Connections closed at once: their address held its share; the process was out of descriptors. */
  readonly refused = { address: 0, descriptors: 0 };
  /** Open TCP connections on this listener (exact on both kinds of server). */
  open = 0;
  private readonly perAddress = new Map<string, number>();
  private windowStart = 0;
  private pendingLog = 0;
  private lastLogAt = -Infinity;

  constructor(readonly listener: Listener, private readonly max: number, private readonly log: Logger, private readonly state: SheddingState) {}

  /** node:http / https: counts each TCP connection until it closes; closes one past the cap. */
  attachNet(server: net.Server): void {
    server.on('connection', (socket: net.Socket) => {
      if (this.state.shedding) {
        socket.destroy();
        this.refused.descriptors++;
        return;
      }
      const address = normalizeAddress(socket.remoteAddress);
      if (this.max > 0 && (this.perAddress.get(address) ?? 0) >= this.max) {
        socket.destroy();
        this.refuse(address);
        return;
      }
      this.open++;
      this.perAddress.set(address, (this.perAddress.get(address) ?? 0) + 1);
      socket.once('close', () => {
        this.open--;
        const n = (this.perAddress.get(address) ?? 1) - 1;
        if (n <= 0) this.perAddress.delete(address);
        else this.perAddress.set(address, n);
      });
    });
  }

  /** uWS: counts connections opened per address per UWS_WINDOW_MS; closes one past the cap. */
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
      const now = Date.now();
      if (now - this.windowStart >= UWS_WINDOW_MS || this.perAddress.size >= MAX_TRACKED_ADDRESSES) {
        this.perAddress.clear();
        this.windowStart = now;
      }
      const address = normalizeAddress(Buffer.from(res.getRemoteAddressAsText()).toString());
      const n = (this.perAddress.get(address) ?? 0) + 1;
      this.perAddress.set(address, n);
      if (n > this.max) {
        res.close(); // uWS calls this filter again with -1 at once
        this.refuse(address);
      }
    });
  }

  private refuse(address: string): void {
    this.refused.address++;
    this.pendingLog++;
    const now = Date.now();
    if (now - this.lastLogAt < GUARD_LOG_INTERVAL_MS) return;
    this.log.warn({ module: 'connection-guard', listener: this.listener, address, refused: this.pendingLog, max: this.max }, 'connections closed: too many from one address (MAX_CONNECTIONS_PER_ADDRESS)');
    this.pendingLog = 0;
    this.lastLogAt = now;
  }
}
