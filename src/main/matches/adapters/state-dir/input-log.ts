// InputLog on STATE_DIR (matches/input-log.ts): append-only segment files in `<STATE_DIR>/inputs/`
// (directory 0700, files 0600), one process writing them. `append` buffers; `flush` (the pool, before
// it posts a batch) and the end of the event-loop turn write the buffer with one synchronous write,
// so what a shard applies is in the page cache before it does: a SIGKILL loses none of it (a power
// cut may tear the last record: the reader stops there).
//
// A record is a JSON header line, then the payload as it came, then a newline:
//   {"c":"<group code>","e":<epoch>,"n":<input>,"t":<receive time>,"l":<payload length>[,"m":"<match id>","p":"<player id>"][,"v":"<via>"]}\n<payload>\n
// (the payload's length in UTF-16 units: the file is read back whole as one string). Inputs are
// ordered by (epoch, n) as the Redis adapter's stream ids are, and fenced the same way, though one
// process writes them: `since` at an epoch refuses later appends of lower epochs, and `covered` and
// `drop` of an epoch below the match's latest change nothing.
//
// Segments rotate every `segmentMs` (or past `segmentBytes`); an old segment is deleted once every
// match in it has a stored snapshot holding its inputs there (`covered`) or is gone (`drop`). The
// segments found at start are the previous run's: `since` answers from them (the matches resumed
// at start), and they go once the resumed matches are covered (a match not resumed by `segmentMs`
// after start counts as gone).
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../../base/log.js';
import type { InputLog, LoggedInput } from '../../input-log.js';

export interface StateDirInputLogOptions {
  /** A segment's most bytes before the next is begun (default 16 MiB). */
  segmentBytes?: number;
  /** A segment's longest life before the next is begun, and the sweep's period (default 10 s). */
  segmentMs?: number;
}

/** An input's place in its match's log: (epoch, n), ordered as the Redis adapter's stream ids. */
type Place = readonly [epoch: number, n: number];
/** Whether (epoch, n) comes after `place`. */
const after = (epoch: number, n: number, place: Place): boolean => epoch > place[0] || (epoch === place[0] && n > place[1]);

/** What the log knows of one match: the highest epoch that read it (the fence) or wrote it, and the place a stored snapshot (or its end) covers. */
interface MatchLog {
  fence: number;
  latest: number;
  covered?: Place;
  /** A deposed owner's append was refused (logged once). */
  refused?: boolean;
}

interface Segment {
  readonly file: string;
  /** The highest place of each match in it. */
  readonly highest: Map<string, Place>;
  bytes: number;
  /** Of the previous run (found at start). */
  readonly old: boolean;
}

const SEGMENT = /^inputs-(\d+)\.log$/;

/** A logged input with the epoch it was written under. */
interface EpochInput { epoch: number; input: LoggedInput }

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
  private readonly previous = new Map<string, EpochInput[]>();
  /** Matches `since` was asked for: the previous run's matches resumed. */
  private readonly resumed = new Set<string>();
  /** Per match: fence, latest epoch, what is covered (matchOf). */
  private readonly matches = new Map<string, MatchLog>();
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

  append(groupCode: string, epoch: number, input: LoggedInput): void {
    const match = this.matchOf(groupCode);
    if (epoch < match.fence) {
      if (!match.refused) this.log.warn({ groupCode, epoch, fence: match.fence }, 'input log append of a deposed owner refused');
      match.refused = true;
      return;
    }
    match.latest = Math.max(match.latest, epoch);
    const head: Record<string, unknown> = { c: groupCode, e: epoch, n: input.n, t: input.now, l: input.raw.length };
    if (input.kind === 'aux') { head.m = input.matchId; head.p = input.playerId; }
    if (input.via !== undefined) head.v = input.via;
    const record = JSON.stringify(head) + '\n' + input.raw + '\n';
    this.buffer.push(record);
    this.bufferBytes += record.length;
    const highest = this.current.highest;
    const at = highest.get(groupCode);
    if (!at || after(epoch, input.n, at)) highest.set(groupCode, [epoch, input.n]);
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

  async since(groupCode: string, epoch: number, fromEpoch: number, afterInput: number): Promise<LoggedInput[]> {
    this.flush();
    this.resumed.add(groupCode);
    const match = this.matchOf(groupCode);
    match.fence = Math.max(match.fence, epoch);
    match.latest = Math.max(match.latest, epoch);
    // The previous run's from memory; this run's read back from its files (a match rebuilt twice in one run: rare).
    const found = [...(this.previous.get(groupCode) ?? []), ...this.read(this.segments.filter((s) => !s.old && s.highest.has(groupCode)), groupCode)];
    const covered = match.covered;
    return found.filter((i) => i.epoch >= fromEpoch && i.input.n > afterInput && (!covered || after(i.epoch, i.input.n, covered))).map((i) => i.input);
  }

  covered(groupCode: string, epoch: number, n: number): void {
    const match = this.matchOf(groupCode);
    if (epoch < match.latest) return; // a deposed owner's snapshot: its successor may not have read these yet
    if (!match.covered || after(epoch, n, match.covered)) match.covered = [epoch, n];
  }

  drop(groupCode: string, epoch: number): void {
    const match = this.matchOf(groupCode);
    if (epoch < match.latest) return; // not a successor's log
    match.covered = [epoch, Infinity];
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
    this.current = { file, highest: new Map<string, Place>(), bytes: 0, old: false };
    this.segments.push(this.current);
  }

  private matchOf(groupCode: string): MatchLog {
    let match = this.matches.get(groupCode);
    if (!match) this.matches.set(groupCode, (match = { fence: 0, latest: 0 }));
    return match;
  }

  /** Deletes the segments whose every match is covered or gone. */
  private sweep(): void {
    const settled = Date.now() - this.startedAt >= this.segmentMs;
    const isCovered = (code: string, [epoch, n]: Place) => {
      const covered = this.matches.get(code)?.covered;
      return covered !== undefined && !after(epoch, n, covered);
    };
    const done = (s: Segment) => [...s.highest].every(([code, place]) => isCovered(code, place) || (s.old && settled && !this.resumed.has(code)));
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
    // Forget the matches no segment names any more and no buffer holds (their fences go with them: nothing of theirs is left to fence).
    if (this.buffer.length === 0) for (const code of this.matches.keys()) if (!this.segments.some((s) => s.highest.has(code))) this.matches.delete(code);
    if (settled) for (const code of this.previous.keys()) if (!this.resumed.has(code)) this.previous.delete(code);
  }

  /** The previous run's segments, in order: their inputs by match. */
  private loadPrevious(): void {
    const found = fs.readdirSync(this.dir).map((name) => SEGMENT.exec(name)).filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ name: m[0], seq: Number(m[1]) })).sort((a, b) => a.seq - b.seq);
    for (const { name, seq } of found) {
      const segment: Segment = { file: path.join(this.dir, name), highest: new Map<string, Place>(), bytes: 0, old: true };
      for (const [code, inputs] of this.parse(segment.file)) {
        const list = this.previous.get(code) ?? [];
        list.push(...inputs);
        this.previous.set(code, list);
        const top = inputs[inputs.length - 1];
        segment.highest.set(code, [top.epoch, top.input.n]);
        const match = this.matchOf(code);
        match.latest = Math.max(match.latest, top.epoch);
      }
      this.segments.push(segment);
      this.seq = Math.max(this.seq, seq);
    }
    if (found.length > 0) this.log.info({ segments: found.length, matches: this.previous.size }, 'input log of the previous run read');
  }

  private read(segments: Segment[], groupCode: string): EpochInput[] {
    return segments.flatMap((s) => this.parse(s.file).get(groupCode) ?? []);
  }

  /** A segment's records by match, in order; a torn or unreadable tail ends it. */
  private parse(file: string): Map<string, EpochInput[]> {
    const out = new Map<string, EpochInput[]>();
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
      let head: { c: string; e?: number; n: number; t: number; l: number; m?: string; p?: string; v?: string };
      try {
        head = JSON.parse(text.slice(pos, eol)) as typeof head;
      } catch {
        break;
      }
      const end = eol + 1 + head.l;
      if (typeof head.l !== 'number' || text[end] !== '\n') break;
      const raw = text.slice(eol + 1, end);
      const via = head.v !== undefined ? { via: head.v } : {};
      const input: LoggedInput = head.m !== undefined
        ? { n: head.n, now: head.t, kind: 'aux', matchId: head.m, playerId: head.p ?? '', raw, ...via }
        : { n: head.n, now: head.t, kind: 'obs', raw, ...via };
      const entry: EpochInput = { epoch: head.e ?? 0, input };
      const list = out.get(head.c);
      if (list) list.push(entry); else out.set(head.c, [entry]);
      pos = end + 1;
    }
    if (pos < text.length) this.log.warn({ file: path.basename(file), bytes: text.length - pos }, 'input log segment ends in a torn record: the rest is skipped');
    return out;
  }
}
