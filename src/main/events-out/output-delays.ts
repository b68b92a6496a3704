// The per-match output delay (README, "Output delay"; docs/events.md, "Output delay"): group code →
// seconds that the match's events (webhooks, GET /events) and feeds (GET /feeds) are held back, for a
// production whose video runs behind a broadcast delay. 0 (no entry) is off, the default; the
// overlays (broadcast port) are never delayed. Operator data like the schedule: kept in
// DATA_DIR/output-delays.json (written atomically and synchronously on every change, read at start),
// so a restart keeps it; a code's setting outlives its match (set before the match, it applies to it).
// Read per event (a Map lookup): a match without a delay costs nothing more.
import fs from 'node:fs';
import path from 'node:path';

export const OUTPUT_DELAYS_FILE = 'output-delays.json';
/** The longest delay, seconds: broadcast delays run from seconds to a few minutes; 10 min covers them and bounds what is held (README). */
export const MAX_OUTPUT_DELAY_S = 600;
/** The most codes with a delay at once (the file and the feeds' timelines stay small). */
export const MAX_DELAYED_CODES = 5000;
const FILE_VERSION = 1;

export class OutputDelayError extends Error {}

/** The seconds of an admin request's body `{ seconds }`, or throws OutputDelayError with the reason. */
export function parseDelayBody(body: unknown): number {
  const seconds = typeof body === 'object' && body !== null ? (body as { seconds?: unknown }).seconds : undefined;
  if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 0 || seconds > MAX_OUTPUT_DELAY_S) {
    throw new OutputDelayError(`seconds: a whole number from 0 (off) to ${MAX_OUTPUT_DELAY_S}`);
  }
  return seconds;
}

export class OutputDelays {
  private readonly seconds = new Map<string, number>();
  private readonly listeners = new Set<(groupCode: string, seconds: number) => void>();

  /** `file`: where the setting is kept (null: memory only). An unreadable file stops the start. */
  constructor(private readonly file: string | null) {
    if (file === null || !fs.existsSync(file)) return;
    let parsed: { version?: unknown; delays?: unknown };
    try {
      parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as typeof parsed;
    } catch (err) {
      throw new Error(`${file}: not an output delays file (${(err as Error).message}); move it away to start without the delays`);
    }
    if (parsed.version !== FILE_VERSION || typeof parsed.delays !== 'object' || parsed.delays === null) throw new Error(`${file}: not an output delays file of version ${FILE_VERSION}`);
    for (const [code, s] of Object.entries(parsed.delays as Record<string, unknown>)) {
      if (typeof s === 'number' && Number.isInteger(s) && s > 0 && s <= MAX_OUTPUT_DELAY_S) this.seconds.set(code, s);
    }
  }

  /** The code's delay in milliseconds (0: none). */
  delayMs(groupCode: string): number {
    return (this.seconds.get(groupCode) ?? 0) * 1000;
  }

  secondsOf(groupCode: string): number {
    return this.seconds.get(groupCode) ?? 0;
  }

  /** Every code with a delay. */
  all(): Array<{ groupCode: string; seconds: number }> {
    return [...this.seconds].map(([groupCode, seconds]) => ({ groupCode, seconds }));
  }

  get size(): number {
    return this.seconds.size;
  }

  /** Sets (0: removes) a code's delay; kept on disk before it returns; throws OutputDelayError past MAX_DELAYED_CODES. */
  set(groupCode: string, seconds: number): void {
    if (seconds > 0 && !this.seconds.has(groupCode) && this.seconds.size >= MAX_DELAYED_CODES) {
      throw new OutputDelayError(`at most ${MAX_DELAYED_CODES} group codes can have a delay at once`);
    }
    if ((this.seconds.get(groupCode) ?? 0) === seconds) return;
    if (seconds === 0) this.seconds.delete(groupCode);
    else this.seconds.set(groupCode, seconds);
    this.save();
    for (const listener of this.listeners) listener(groupCode, seconds);
  }

  /** Told of every change (the journal hands on what is due now; the feeds start or stop a timeline). */
  onChange(listener: (groupCode: string, seconds: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private save(): void {
    if (this.file === null) return;
    const tmp = `${this.file}.${process.pid}.tmp`;
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(tmp, JSON.stringify({ version: FILE_VERSION, delays: Object.fromEntries(this.seconds) }), { mode: 0o600 });
    fs.renameSync(tmp, this.file);
  }
}
