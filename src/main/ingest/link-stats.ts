// The health of each ingestion link (README, "Operator dashboard and admin API"; docs/reliability.md,
// "Every link's health in view"): per socket, its data messages (a count, the only per-message cost;
// the last one's time is the socket's lastEventAt; the rate is the count's growth between reads), the
// Engine.IO round trip the service measures itself (the time from its ping to the client's pong,
// every PING_INTERVAL_MS) and its drops by reason; per group code, the session resumes and
// reconnection logons of the last 10 minutes. Nothing here is per-match metric labels: the
// dashboard and the admin API read it.
import type { Socket } from 'socket.io';

/** How far back reconnections and resumes are counted. */
export const LINK_EVENTS_WINDOW_MS = 600_000;
/** The message rate is the count's growth between two reads at least this far apart. */
const RATE_SAMPLE_MS = 1000;

export class LinkStats {
  /** Data messages forwarded (one increment per message: the only per-message cost). */
  messages = 0;
  /** The last measured Engine.IO round trip, ms (-1: none measured yet). */
  rttMs = -1;
  private pingAt = 0;
  readonly dropped: Record<string, number> = {};
  private sample = { at: 0, messages: 0, rate: 0 };

  constructor(readonly address: string, now: number) {
    this.sample.at = now;
  }

  drop(reason: string): void {
    this.dropped[reason] = (this.dropped[reason] ?? 0) + 1;
  }

  /** Data messages per second between the last two reads a second or more apart (one decimal). */
  rate(now: number): number {
    const s = this.sample;
    if (now - s.at >= RATE_SAMPLE_MS) {
      s.rate = Math.round(((this.messages - s.messages) * 1000) / (now - s.at) * 10) / 10;
      s.at = now;
      s.messages = this.messages;
    }
    return s.rate;
  }

  /** Times the socket's Engine.IO pings and their pongs (the transport survives upgrades: one connection object). */
  watch(socket: Socket): void {
    const conn = socket.conn as unknown as { on(event: string, listener: (packet: { type?: string }) => void): void };
    conn.on('packetCreate', (p) => { if (p.type === 'ping') this.pingAt = Date.now(); });
    conn.on('packet', (p) => {
      if (p.type === 'pong' && this.pingAt > 0) {
        this.rttMs = Date.now() - this.pingAt;
        this.pingAt = 0;
      }
    });
  }
}

/** Resumes (a new socket took a session over) and reconnection logons (the group or standby secret again), per group code. */
export class LinkEvents {
  private readonly byCode = new Map<string, { resumes: number[]; reconnects: number[] }>();
  /** When every entry was last pruned: an ended match's entry, never read again, goes at the next sweep (a window or two after its last event). */
  private sweptAt = 0;

  /** Group codes with an entry (for the tests: ended matches' entries go). */
  get size(): number {
    return this.byCode.size;
  }

  resumed(groupCode: string, now: number): void {
    this.entry(groupCode, now).resumes.push(now);
  }

  reconnected(groupCode: string, now: number): void {
    this.entry(groupCode, now).reconnects.push(now);
  }

  /** The counts of the last 10 minutes. */
  counts(groupCode: string, now: number): { resumes: number; reconnects: number } {
    const e = this.byCode.get(groupCode);
    if (!e) return { resumes: 0, reconnects: 0 };
    this.prune(e, now);
    if (e.resumes.length === 0 && e.reconnects.length === 0) this.byCode.delete(groupCode);
    return { resumes: e.resumes.length, reconnects: e.reconnects.length };
  }

  private entry(groupCode: string, now: number) {
    if (now - this.sweptAt > LINK_EVENTS_WINDOW_MS) this.sweep(now);
    let e = this.byCode.get(groupCode);
    if (!e) this.byCode.set(groupCode, (e = { resumes: [], reconnects: [] }));
    this.prune(e, now);
    return e;
  }

  private sweep(now: number): void {
    this.sweptAt = now;
    for (const [code, e] of this.byCode) {
      this.prune(e, now);
      if (e.resumes.length === 0 && e.reconnects.length === 0) this.byCode.delete(code);
    }
  }

  private prune(e: { resumes: number[]; reconnects: number[] }, now: number): void {
    while (e.resumes.length > 0 && now - e.resumes[0] > LINK_EVENTS_WINDOW_MS) e.resumes.shift();
    while (e.reconnects.length > 0 && now - e.reconnects[0] > LINK_EVENTS_WINDOW_MS) e.reconnects.shift();
  }
}
