// Surviving descriptor exhaustion (docs/reliability.md, "Connection abuse"). When the process has
// no descriptor left, accept() fails on every port:
// - uWS (ingestion, REST) retries the pending connection on every event-loop turn: a busy loop at
//   100% CPU (measured) for as long as the exhaustion lasts, on the thread that runs every socket.
//   Closing its listen socket would stop that, but uWS cannot listen again on a port that still has
//   connections (no SO_REUSEADDR: measured), so the listeners stay;
// - node:http (broadcast) accepts and closes pending connections with libuv's reserve descriptor
//   (no loop), and emits an `accept` error when that reserve is gone too: with no listener for it
//   the process ends.
// So this does what libuv does, for every port: RESERVE descriptors are held from the start; a probe
// opens /dev/null every PROBE_MS, and when that fails (or node reports an accept error) the process
// is out of descriptors: the reserve is released and every new connection on every port is closed
// at once (ConnectionGuard `shedding`), so accept() succeeds and the pending ones drain instead of
// spinning; open connections carry on. One log line per interval, a counter in /metrics. Once
// resumeFree() descriptors are free again the reserve is taken back and connections are accepted.
import fs from 'node:fs';
import type net from 'node:net';
import { openDescriptors } from '../base/fd-limit.js';
import type { Logger } from '../base/log.js';
import { GUARD_LOG_INTERVAL_MS, type Listener, type SheddingState } from './connection-guard.js';

/** The probe's interval: a busy uWS accept loop lasts at most this long before connections are shed. */
export const PROBE_MS = 500;
/** Descriptors held for the moment the process runs out (released then: accept() works again and new connections are closed at once). */
export const RESERVE = 8;
/** Descriptors that must be free before connections are accepted again (so it does not run out again at once). */
export const resumeFree = (limit: number | null): number => Math.max(16, Math.min(256, Math.floor((limit ?? 0) / 20)));

export class DescriptorWatch {
  /** Times the process ran out of descriptors (each start of shedding). */
  exhaustions = 0;
  /** accept() errors node reported, by listener (uWS reports none: it retries). */
  readonly acceptErrors: Partial<Record<Listener, number>> = {};
  private reserve: number[] = [];
  private readonly timer: NodeJS.Timeout;
  private lastLogAt = -Infinity;
  private unlogged = 0;

  /** `state.shedding` is read by every ConnectionGuard. */
  constructor(private readonly log: Logger, private readonly limit: number | null, readonly state: SheddingState) {
    this.takeReserve();
    this.timer = setInterval(() => this.check(), PROBE_MS);
    this.timer.unref();
  }

  get paused(): boolean { return this.state.shedding; }

  /** node:http: accept errors are handled here (without a listener they would end the process). */
  watchNet(name: Listener, server: net.Server): void {
    server.on('error', (err: NodeJS.ErrnoException) => {
      if (err.syscall !== 'accept') { // listen errors: the caller of listen() handles them
        if (err.syscall !== 'listen') this.log.error({ module: 'descriptors', listener: name, error: err.message }, 'listener error');
        return;
      }
      this.acceptErrors[name] = (this.acceptErrors[name] ?? 0) + 1;
      this.exhausted(err.code ?? 'accept');
    });
  }

  private check(): void {
    if (!this.state.shedding) {
      if (!probe()) this.exhausted('EMFILE');
      return;
    }
    const open = openDescriptors();
    const free = open === null || this.limit === null ? (probe() ? Infinity : 0) : this.limit - open;
    if (free < resumeFree(this.limit) + RESERVE) return;
    this.takeReserve();
    this.state.shedding = false;
    if (Date.now() - this.lastLogAt >= GUARD_LOG_INTERVAL_MS || this.unlogged === 0) this.log.info({ module: 'descriptors', open, limit: this.limit }, 'file descriptors free again: accepting connections');
  }

  private exhausted(code: string): void {
    if (this.state.shedding) return;
    this.state.shedding = true;
    this.exhaustions++;
    for (const fd of this.reserve) fs.closeSync(fd);
    this.reserve = [];
    this.unlogged++;
    const now = Date.now();
    if (now - this.lastLogAt < GUARD_LOG_INTERVAL_MS) return;
    this.log.warn({ module: 'descriptors', code, limit: this.limit, open: openDescriptors(), times: this.unlogged }, 'out of file descriptors: new connections closed at once until descriptors are free');
    this.lastLogAt = now;
    this.unlogged = 0;
  }

  private takeReserve(): void {
    try {
      while (this.reserve.length < RESERVE) this.reserve.push(fs.openSync('/dev/null', 'r'));
    } catch {
      // taken back at the next check
    }
  }

  close(): void {
    clearInterval(this.timer);
    for (const fd of this.reserve) fs.closeSync(fd);
    this.reserve = [];
  }
}

/** Whether one more descriptor can be opened now. */
function probe(): boolean {
  try {
    fs.closeSync(fs.openSync('/dev/null', 'r'));
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code !== 'EMFILE' && code !== 'ENFILE';
  }
}
