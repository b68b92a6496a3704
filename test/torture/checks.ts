// What the torture harness checks after each run (docs/reliability.md, "Torture harness"), from what
// the receiver got and a clean run of the same records: every event of the match at least once (by
// id: seq 1…N without a gap, match_ended last), first arrivals in seq order, the game's events (type
// and data) and the record equal to the clean run's, the series result right, and never two nodes'
// requests for one match overlapping at the receiver, except a request already in flight when its node
// was stopped (SIGKILL or SIGSTOP: the documented exception).
import type { Arrival, TortureEvent } from './receiver.js';

/** Events the service adds about the link, not the game: left out of the comparison with the clean run. */
const OPERATIONAL = new Set(['observer_failover', 'observer_silent', 'observer_back']);

export interface CleanRun {
  /** The game's events, normalised (code and key replaced, the record's storage time left out). */
  game: string[];
  record: string;
  series: string;
  results: string;
}

export interface RunOutcome {
  /** Event ids missing (a gap in 1…N, or no match_ended at all: counted as 1). */
  lost: number;
  outOfOrder: number;
  wrongEvents: number;
  wrongRecord: boolean;
  wrongSeries: boolean;
  /** Overlaps of two nodes' requests for one match and switches back to a replaced node, beyond the in-flight exception; and the overlaps excused by it. */
  twoOwners: number;
  excused: number;
  duplicates: number;
  /** Match keys the match's events came under (1: one match for the bracket). */
  matchKeys: number;
  /**
   * The observer's records the service never applied (sent − the final owner's input count): those in
   * the connection when its node was killed or frozen, which the unchanged client never sends again
   * (obs_data has no acknowledgement). A run with any is compared with a clean run it cannot equal:
   * its wrong events, record and series are counted apart (`excusedWrong`), not as failures.
   */
  inputsLost: number;
  excusedWrong: number;
  notes: string[];
}

/** Whether a node dropped data it held for the match (its bound reached: matches/owner-delivery.ts): a loss of the service's, never excused. */
export function heldDropped(logs: Iterable<string[]>, code: string): boolean {
  for (const lines of logs) if (lines.some((l) => l.includes('dropped: its bound is reached') && l.includes(code))) return true;
  return false;
}

/** The number of inputs the match's last owner had when it removed the match (its `match removed` log line), or undefined. */
export function inputsApplied(logs: Iterable<string[]>, code: string): number | undefined {
  let applied: number | undefined;
  for (const lines of logs) {
    for (const line of lines) {
      if (!line.includes('match removed') || !line.includes(code)) continue;
      try {
        const entry = JSON.parse(line) as { msg?: string; groupCode?: string; inputs?: unknown };
        if (entry.msg === 'match removed' && entry.groupCode === code && typeof entry.inputs === 'number') applied = Math.max(applied ?? 0, entry.inputs);
      } catch { /* not a log line */ }
    }
  }
  return applied;
}

/** The code and match key replaced, the record's storedAt and startedAt dropped (wall-clock times: the
 *  record's start is match_created's time, when the logon came): comparable across runs. */
export function normalise(value: unknown, code: string, matchKey: string): string {
  const text = JSON.stringify(value, (k, v) => (k === 'storedAt' || k === 'startedAt' ? undefined : v)) ?? 'null';
  return (matchKey ? text.replaceAll(matchKey, '<key>') : text).replaceAll(code, '<code>');
}

/** One game event as compared: type, round, time (match_created's is the logon's wall clock: left out) and data. */
function gameLine(e: TortureEvent, code: string, key: string): string {
  return normalise({ type: e.type, round: e.round, time: e.type === 'match_created' ? undefined : e.time, data: { ...e.data, record: undefined } }, code, key);
}

export function cleanOf(events: TortureEvent[], code: string, results: unknown): CleanRun {
  const ended = events.find((e) => e.type === 'match_ended');
  if (!ended) throw new Error('the clean run has no match_ended');
  const key = ended.matchKey;
  const game = events.filter((e) => !OPERATIONAL.has(e.type)).sort((a, b) => a.seq - b.seq);
  return {
    game: game.map((e) => gameLine(e, code, key)),
    record: normalise(ended.data.record, code, key),
    series: normalise(ended.data.series, code, key),
    results: normalise(results, code, key),
  };
}

/** A node's stop (kill or freeze) at `at`: its requests that began before and ended after are in flight. */
/** A node stopped at `at` (SIGKILL, or SIGSTOP until `resumedAt`). */
export interface Stop { node: string; at: number; resumedAt?: number }

/**
 * How soon after its SIGCONT a frozen node's request that it had begun before the freeze reaches the
 * receiver: the bytes leave only once the process runs again, so the receiver sees it start after
 * the stop (beside two CPU hogs a resumed process may wait a while for a core).
 */
export const RESUME_WRITE_MS = 2000;

export function check(arrivals: Arrival[], unique: TortureEvent[], clean: CleanRun, code: string, results: unknown, stops: Stop[], inputsLost: number): RunOutcome {
  const notes: string[] = [];
  if (inputsLost > 0) notes.push(`${inputsLost} of the observer's records never applied (in the connection or the stopped node's buffers at the fault): wrong events, record and series counted apart`);
  const keys = new Set(unique.map((e) => e.matchKey));
  if (keys.size > 1) notes.push(`the match's events came under ${keys.size} match keys (${[...keys].join(', ')}): the bracket sees ${keys.size} matches`);
  const ended = unique.find((e) => e.type === 'match_ended');
  const seqs = new Set(unique.map((e) => e.seq));
  const top = Math.max(0, ...seqs);
  let lost = 0;
  for (let s = 1; s <= top; s++) if (!seqs.has(s)) lost++;
  if (!ended) { lost++; notes.push(`no match_ended (${unique.length} events, seq up to ${top})`); }
  else if (ended.seq !== top) notes.push(`events after match_ended (seq ${ended.seq} < ${top})`);
  if (lost && ended) notes.push(`${lost} event ids missing in 1…${top}`);

  let outOfOrder = 0;
  let highest = 0;
  for (const e of unique) {
    if (e.seq !== highest + 1) outOfOrder++;
    highest = Math.max(highest, e.seq);
  }
  if (outOfOrder) notes.push(`${outOfOrder} first arrivals out of seq order`);

  const key = ended?.matchKey ?? unique[0]?.matchKey ?? '';
  const game = unique.filter((e) => !OPERATIONAL.has(e.type)).sort((a, b) => a.seq - b.seq)
    .map((e) => gameLine(e, code, key));
  // Compared as multisets: a missing or extra event counts once (not every event after it).
  const left = new Map<string, number>();
  for (const g of clean.game) left.set(g, (left.get(g) ?? 0) + 1);
  const extra: string[] = [];
  for (const g of game) {
    const n = left.get(g) ?? 0;
    if (n > 0) left.set(g, n - 1);
    else extra.push(g);
  }
  const missing = [...left].flatMap(([g, n]) => Array<string>(n).fill(g));
  const wrongEvents = missing.length + extra.length;
  const brief = (g: string) => { const j = JSON.parse(g) as { type: string; round: number }; return `${j.type} r${j.round}`; };
  if (wrongEvents) notes.push(`game events vs the clean run: ${missing.length} missing (${missing.slice(0, 6).map(brief).join(', ')}${missing.length > 6 ? ', …' : ''}), ${extra.length} not in it (${extra.slice(0, 6).map(brief).join(', ')}${extra.length > 6 ? ', …' : ''})`);
  const wrongRecord = !ended || normalise(ended.data.record, code, key) !== clean.record;
  const wrongSeries = !ended || normalise(ended.data.series, code, key) !== clean.series || normalise(results, code, key) !== clean.results;
  if (wrongRecord && ended) notes.push('the record differs from the clean run\'s');
  if (wrongSeries) notes.push(`series: ${normalise(results, code, key).slice(0, 200)} vs clean ${clean.results.slice(0, 200)}`);

  // Two nodes' requests for one match overlapping in time at the receiver.
  let twoOwners = 0;
  let excused = 0;
  // In flight at a stop: a request the receiver was reading when the node stopped, or, for a node
  // frozen and resumed, its first request for the match after the stop when it began within
  // RESUME_WRITE_MS of the resume (a lane has one request at a time, so that is the request the node
  // had begun before it froze; a new one would need a lease check it fails after the freeze).
  const resumedFirst = new Set<Arrival>();
  for (const s of stops) {
    if (s.resumedAt === undefined) continue;
    for (const key of new Set(arrivals.flatMap((a) => a.matchKeys))) {
      const first = arrivals.filter((a) => a.node === s.node && a.start >= s.at && a.matchKeys.includes(key)).sort((a, b) => a.start - b.start)[0];
      if (first && first.start <= s.resumedAt + RESUME_WRITE_MS) resumedFirst.add(first);
    }
  }
  const inFlightAtStop = (a: Arrival) => resumedFirst.has(a) || stops.some((s) => s.node === a.node && a.start <= s.at && a.end >= s.at);
  for (let i = 0; i < arrivals.length; i++) {
    for (let j = i + 1; j < arrivals.length; j++) {
      const a = arrivals[i];
      const b = arrivals[j];
      if (a.node === b.node || a.start > b.end || b.start > a.end || !a.matchKeys.some((k) => b.matchKeys.includes(k))) continue;
      if (inFlightAtStop(a) || inFlightAtStop(b)) { excused++; continue; }
      twoOwners++;
      if (twoOwners <= 3) notes.push(`two owners: ${a.node} [${a.start}–${a.end}] seq ${a.events[0]?.seq} and ${b.node} [${b.start}–${b.end}] seq ${b.events[0]?.seq}`);
    }
  }
  // A match's deliveries going back to a node another had replaced (A, B, A): two nodes delivering it
  // in the same stretch of time, even when their requests happen not to overlap.
  let switchBacks = 0;
  const byStart = [...arrivals].filter((a) => !inFlightAtStop(a)).sort((a, b) => a.start - b.start);
  for (const key of new Set(arrivals.flatMap((a) => a.matchKeys))) {
    const retired = new Set<string>();
    let current = '';
    for (const a of byStart) {
      if (!a.matchKeys.includes(key) || a.node === current) continue;
      if (retired.has(a.node)) switchBacks++;
      if (current) retired.add(current);
      retired.delete(a.node);
      current = a.node;
    }
  }
  if (switchBacks) notes.push(`${switchBacks} times a match's deliveries went back to a node another had replaced (two deliverers in the same stretch)`);
  twoOwners += switchBacks;
  if (twoOwners > 3) notes.push(`… ${twoOwners} overlapping pairs of two nodes' requests for the match in all`);
  const duplicates = arrivals.reduce((n, a) => n + a.events.length, 0) - unique.length;
  if (inputsLost > 0) {
    const excusedWrong = wrongEvents + (wrongRecord ? 1 : 0) + (wrongSeries ? 1 : 0);
    return { lost, outOfOrder, wrongEvents: 0, wrongRecord: false, wrongSeries: false, twoOwners, excused, duplicates, matchKeys: keys.size, inputsLost, excusedWrong, notes };
  }
  return { lost, outOfOrder, wrongEvents, wrongRecord, wrongSeries, twoOwners, excused, duplicates, matchKeys: keys.size, inputsLost, excusedWrong: 0, notes };
}
