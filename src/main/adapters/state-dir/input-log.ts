// InputLog on STATE_DIR (ports/input-log.ts): append-only segment files in `<STATE_DIR>/inputs/`
// (directory 0700, files 0600), one process writing them. `append` buffers; `flush` (the pool, before
// it posts a batch) and the end of the event-loop turn write the buffer with one synchronous write,
// so what a shard applies is in the page cache before it does: a SIGKILL loses none of it (a power
// cut may tear the last record: the reader stops there).
//
// A record is a JSON header line, then the payload as it came, then a newline:
//   {"c":"<group code>","n":<input>,"t":<receive time>,"l":<payload length>[,"m":"<match id>","p":"<player id>"]}\n<payload>\n
// (the payload's length in UTF-16 units: the file is read back whole as one string).
//
// Segments rotate every `segmentMs` (or past `segmentBytes`); an old segment is deleted once every
// match in it has a stored snapshot holding its inputs there (`covered`) or is gone (`drop`). The
// segments found at start are the previous run's: `since` answers from them (the matches resumed
// at start), and they go once the resumed matches are covered (a match not resumed by `segmentMs`
// after start counts as gone).
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../base/log.js';
import type { InputLog, LoggedInput } from '../../ports/input-log.js';

export interface StateDirInputLogOptions {
  /** A segment's most bytes before the next is begun (default 16 MiB). */
  segmentBytes?: number;
  /** A segment's longest life before the next is begun, and the sweep's period (default 10 s). */
  segmentMs?: number;
}

interface Segment {
  readonly file: string;
  /** The highest input of each match in it. */
  readonly highest: Map<string, number>;
  bytes: number;
  /** Of the previous run (found at start). */
  readonly old: boolean;
}

const SEGMENT = /^inputs-(\d+)\.log$/;

export class StateDirInputLog implements InputLog {
  private readonly log: Logger;
  private readonly segmentBytes: number;
  private readonly segmentMs: number;
  private readonly segments: Segment[] = [];
  private current!: Segment;
  private fd = -1;
  private seq = 0;
  private buffer: string[] = [];
  private bufferBytes = 0;
  private scheduled = false;
  /** The previous run's inputs by match (read at start, for `since`). */
  private readonly previous = new Map<string, LoggedInput[]>();
  /** Matches `since` was asked for: the previous run's matches resumed. */
  private readonly resumed = new Set<string>();
  /** The highest input of each match a stored snapshot holds (Infinity: the match is gone). */
  private readonly coveredUpTo = new Map<string, number>();
  private readonly startedAt = Date.now();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly dir: string, log: Logger, options: StateDirInputLogOptions = {}) {
    this.log = log.child({ module: 'input-log' });
    this.segmentBytes = options.segmentBytes ?? 16 * 1024 * 1024;
    this.segmentMs = options.segmentMs ?? 10_000;
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.loadPrevious();
    this.begin();
    this.timer = setInterval(() => this.rotate(), this.segmentMs);
    this.timer.unref();
  }

  append(groupCode: string, _epoch: number, input: LoggedInput): void {
    const head: Record<string, unknown> = { c: groupCode, n: input.n, t: input.now, l: input.raw.length };
    if (input.kind === 'aux') { head.m = input.matchId; head.p = input.playerId; }
    const record = JSON.stringify(head) + '\n' + input.raw + '\n';
    this.buffer.push(record);
    this.bufferBytes += record.length;
    const highest = this.current.highest;
    if ((highest.get(groupCode) ?? 0) < input.n) highest.set(groupCode, input.n);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flushNow);
    }
  }

  private readonly flushNow = (): void => this.flush();

  flush(): void {
    this.scheduled = false;
    if (this.buffer.length === 0) return;
    const text = this.buffer.length === 1 ? this.buffer[0] : this.buffer.join('');
    this.buffer = [];
    this.current.bytes += this.bufferBytes;
    this.bufferBytes = 0;
    try {
      fs.writeSync(this.fd, text);
    } catch (err) {
      // The inputs are applied all the same; a restart before their snapshot would not have them.
      this.log.error({ error: (err as Error).message, bytes: text.length }, 'input log write failed');
    }
    if (this.current.bytes >= this.segmentBytes) this.rotate();
  }

  async since(groupCode: string, _epoch: number, _fromEpoch: number, after: number): Promise<LoggedInput[]> {
    this.flush();
    this.resumed.add(groupCode);
    const ours = this.segments.some((s) => !s.old && s.highest.has(groupCode));
    // Inputs of this run are read back from the files (a match rebuilt twice in one run: rare).
    const inputs = ours ? this.read(this.segments.filter((s) => s.highest.has(groupCode)), groupCode) : (this.previous.get(groupCode) ?? []);
    return inputs.filter((i) => i.n > after);
  }

  covered(groupCode: string, _epoch: number, n: number): void {
    if ((this.coveredUpTo.get(groupCode) ?? 0) < n) this.coveredUpTo.set(groupCode, n);
  }

  drop(groupCode: string): void {
    this.coveredUpTo.set(groupCode, Infinity);
    this.previous.delete(groupCode);
  }

  close(): void {
    clearInterval(this.timer);
    this.flush();
    if (this.fd >= 0) fs.closeSync(this.fd);
    this.fd = -1;
  }

  /** A new segment after the current one (if it has anything), then the sweep. */
  private rotate(): void {
    this.flush();
    if (this.current.bytes > 0) {
      fs.closeSync(this.fd);
      this.begin();
    }
    this.sweep();
  }

  private begin(): void {
    const file = path.join(this.dir, `inputs-${++this.seq}.log`);
    this.fd = fs.openSync(file, 'a', 0o600);
    this.current = { file, highest: new Map(), bytes: 0, old: false };
    this.segments.push(this.current);
  }

  /** Deletes the segments whose every match is covered or gone. */
  private sweep(): void {
    const settled = Date.now() - this.startedAt >= this.segmentMs;
    const done = (s: Segment) => [...s.highest].every(([code, n]) =>
      (this.coveredUpTo.get(code) ?? 0) >= n || (s.old && settled && !this.resumed.has(code)));
    for (let i = 0; i < this.segments.length; i++) {
      const s = this.segments[i];
      if (s === this.current || !done(s)) continue;
      try {
        fs.rmSync(s.file, { force: true });
      } catch (err) {
        this.log.warn({ file: path.basename(s.file), error: (err as Error).message }, 'input log segment not deleted');
        continue;
      }
      this.segments.splice(i--, 1);
    }
    // Forget what no segment names any more.
    for (const code of this.coveredUpTo.keys()) if (!this.segments.some((s) => s.highest.has(code))) this.coveredUpTo.delete(code);
    if (settled) for (const code of this.previous.keys()) if (!this.resumed.has(code)) this.previous.delete(code);
  }

  /** The previous run's segments, in order: their inputs by match. */
  private loadPrevious(): void {
    const found = fs.readdirSync(this.dir).map((name) => SEGMENT.exec(name)).filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ name: m[0], seq: Number(m[1]) })).sort((a, b) => a.seq - b.seq);
    for (const { name, seq } of found) {
      const segment: Segment = { file: path.join(this.dir, name), highest: new Map(), bytes: 0, old: true };
      for (const [code, inputs] of this.parse(segment.file)) {
        const list = this.previous.get(code) ?? [];
        list.push(...inputs);
        this.previous.set(code, list);
        segment.highest.set(code, inputs[inputs.length - 1].n);
      }
      this.segments.push(segment);
      this.seq = Math.max(this.seq, seq);
    }
    if (found.length > 0) this.log.info({ segments: found.length, matches: this.previous.size }, 'input log of the previous run read');
  }

  private read(segments: Segment[], groupCode: string): LoggedInput[] {
    return segments.flatMap((s) => this.parse(s.file).get(groupCode) ?? []);
  }

  /** A segment's records by match, in order; a torn or unreadable tail ends it. */
  private parse(file: string): Map<string, LoggedInput[]> {
    const out = new Map<string, LoggedInput[]>();
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (err) {
      this.log.error({ file: path.basename(file), error: (err as Error).message }, 'input log segment not read');
      return out;
    }
    let pos = 0;
    while (pos < text.length) {
      const eol = text.indexOf('\n', pos);
      if (eol < 0) break;
      let head: { c: string; n: number; t: number; l: number; m?: string; p?: string };
      try {
        head = JSON.parse(text.slice(pos, eol)) as typeof head;
      } catch {
        break;
      }
      const end = eol + 1 + head.l;
      if (typeof head.l !== 'number' || text[end] !== '\n') break;
      const raw = text.slice(eol + 1, end);
      const input: LoggedInput = head.m !== undefined
        ? { n: head.n, now: head.t, kind: 'aux', matchId: head.m, playerId: head.p ?? '', raw }
        : { n: head.n, now: head.t, kind: 'obs', raw };
      const list = out.get(head.c);
      if (list) list.push(input); else out.set(head.c, [input]);
      pos = end + 1;
    }
    if (pos < text.length) this.log.warn({ file: path.basename(file), bytes: text.length - pos }, 'input log segment ends in a torn record: the rest is skipped');
    return out;
  }
}
