// Surviving descriptor exhaustion (docs/reliability.md, "Connection abuse"). When the process has
// no descriptor left, accept() fails on every port:
// - uWS (ingestion, REST) retries the pending connection on every event-loop turn: a busy loop at
//   100% CPU (measured) for as long as the exhaustion lasts, on the thread that runs every socket;
// - node:http (broadcast) uses libuv's reserve descriptor to accept and close pending connections
//   (no loop), and emits an `accept` error only when the reserve is gone too: with no listener for
//   it the process ends, and libuv retries in the same turn until the listener stops.
// So a probe opens /dev/null every PROBE_MS; when that fails (or node reports an accept error) the
// process is out of descriptors: every listener stops listening (new connections are refused by the
// kernel; open ones carry on), one log line per interval, a counter in /metrics. Once RESUME_FREE
// descriptors are free again, the listeners listen again on the same ports.
import fs from 'node:fs';
import type net from 'node:net';
import { openDescriptors } from '../fd-limit.js';
import type { Logger } from '../log.js';
import { closeListen, listen, type TemplatedApp, type us_listen_socket } from '../uws.js';
import { GUARD_LOG_INTERVAL_MS, type Listener } from './connection-guard.js';

/** The probe's interval: a busy uWS accept loop lasts at most this long before the listeners stop. */
export const PROBE_MS = 500;
/** Descriptors that must be free before the listeners start again (so they do not stop again at once). */
export const resumeFree = (limit: number | null): number => Math.max(16, Math.min(256, Math.floor((limit ?? 0) / 20)));

export interface PausableListener {
  readonly name: Listener;
  /** Stops accepting; open connections stay. */
  pause(): void;
  /** Listens again on the same host and port. */
  resume(): Promise<void>;
  /** Stops for good (shutdown). */
  close(): void;
}

/** A uWS app's listen socket, which can stop and start again. */
export class UwsListener implements PausableListener {
  private token: us_listen_socket | null = null;
  private closed = false;
  port = 0;

  constructor(readonly name: Listener, private readonly app: TemplatedApp, private readonly host: string) {}

  async listen(port: number): Promise<number> {
    const bound = await listen(this.app, this.host, port);
    this.token = bound.token;
    this.port = bound.port;
    return bound.port;
  }

  pause(): void {
    if (this.token) closeListen(this.token);
    this.token = null;
  }

  async resume(): Promise<void> {
    if (this.closed || this.token) return;
    await this.listen(this.port);
    if (this.closed) this.pause(); // shut down meanwhile
  }

  close(): void {
    this.closed = true;
    this.pause();
  }
}

/** A node:http server's listener, which can stop and start again. */
export class NetListener implements PausableListener {
  private closed = false;

  constructor(readonly name: Listener, private readonly server: net.Server, private readonly host: string, private readonly port: () => number) {}

  pause(): void {
    if (this.server.listening) this.server.close();
  }

  resume(): Promise<void> {
    if (this.closed || this.server.listening) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port(), this.host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
  }

  close(): void {
    this.closed = true;
  }
}

export class DescriptorWatch {
  /** Times the process ran out of descriptors (each stop of the listeners). */
  exhaustions = 0;
  /** accept() errors node reported, by listener (uWS reports none: it retries). */
  readonly acceptErrors: Partial<Record<Listener, number>> = {};
  paused = false;
  private readonly listeners: PausableListener[] = [];
  private readonly timer: NodeJS.Timeout;
  private lastLogAt = -Infinity;
  private unlogged = 0;
  private resuming = false;

  constructor(private readonly log: Logger, private readonly limit: number | null) {
    this.timer = setInterval(() => this.check(), PROBE_MS);
    this.timer.unref();
  }

  add(listener: PausableListener): void {
    this.listeners.push(listener);
  }

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
    if (!this.paused) {
      if (!probe()) this.exhausted('EMFILE');
      return;
    }
    const open = openDescriptors();
    const free = open === null || this.limit === null ? (probe() ? Infinity : 0) : this.limit - open;
    if (free >= resumeFree(this.limit) && !this.resuming) void this.resume(open);
  }

  private exhausted(code: string): void {
    if (this.paused) return;
    this.paused = true;
    this.exhaustions++;
    for (const l of this.listeners) l.pause();
    this.unlogged++;
    const now = Date.now();
    if (now - this.lastLogAt < GUARD_LOG_INTERVAL_MS) return;
    this.log.warn({ module: 'descriptors', code, limit: this.limit, open: openDescriptors(), times: this.unlogged }, 'out of file descriptors: listeners stopped until descriptors are free');
    this.lastLogAt = now;
    this.unlogged = 0;
  }

  private async resume(open: number | null): Promise<void> {
    this.resuming = true;
    const failed: string[] = [];
    for (const l of this.listeners) await l.resume().catch((err: Error) => failed.push(`${l.name}: ${err.message}`));
    this.resuming = false;
    if (failed.length > 0) {
      for (const l of this.listeners) l.pause(); // all or none: try again at the next check
      this.log.warn({ module: 'descriptors', failed }, 'listeners could not start again; retrying');
      return;
    }
    this.paused = false;
    if (Date.now() - this.lastLogAt >= GUARD_LOG_INTERVAL_MS || this.unlogged === 0) this.log.info({ module: 'descriptors', open, limit: this.limit }, 'file descriptors free again: listening');
  }

  close(): void {
    clearInterval(this.timer);
    for (const l of this.listeners) l.close();
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
