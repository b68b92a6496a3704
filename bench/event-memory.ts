// bench/event-memory.ts — what a stored match event costs the heap (issue 38, the memory row; the
// design note docs/perf/message-path.md). The recorded match is played through the real engine and
// event deriver (test/helpers/derived-events.ts, as a shard drives them); each derived event is wrapped
// as the journal wrapped it before issue 38 (the envelope object and its JSON text, both kept), and
// M matches' worth of them are held in the heap. Then the same events as the journal keeps them now
// (events/types.ts storedEvent: the JSON text, with the few fields routing reads beside it, the
// envelope parsed back only when asked). Heap (with array buffers) per event and per match for each, after a full GC. A third
// row: a match's texts as one Buffer with typed arrays beside it.
//
//   npm run build && node --expose-gc --import tsx bench/event-memory.ts --matches 300
import { EVENTS_VERSION, type DerivedEvent } from '#built/protocol/match-events.js';
import { storedEvent, type MatchEvent } from '#built/main/events/types.js';
import { derivedEvents } from '../test/helpers/derived-events.js';
import { opt } from './lib/args.js';
import { jsonLine, table } from './lib/report.js';

const M = Number(opt('matches', '300'));
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

/** Match i's events as the journal kept them before (the session of issue 38's design): the envelope object and its text. */
function asToday(derived: DerivedEvent[], i: number): unknown[] {
  const groupCode = `G${i}`;
  const matchKey = `${groupCode}-${1_700_000_000_000 + i}`;
  return derived.map((d, k) => {
    const seq = k + 1;
    // A copy of the data, as each match's events are its own objects (derived per match, cloned across the thread boundary).
    const event = { id: `${matchKey}.${seq}`, type: d.type, version: EVENTS_VERSION, seq, groupCode, matchId: 'm', matchKey, time: new Date(d.at).toISOString(), round: d.round, data: structuredClone(d.data) };
    return { event, text: JSON.stringify(event), order: d.order, organizationId: '', storedAt: Date.now(), keptAt: Date.now() };
  });
}

/** As the journal keeps them now (events/types.ts storedEvent): the text, with what routing reads beside it. */
function asBytes(derived: DerivedEvent[], i: number): unknown[] {
  return (asToday(derived, i) as { event: MatchEvent; text: string; order: number }[]).map((s) => storedEvent(s.event, s.text, { order: s.order, organizationId: '', storedAt: Date.now(), keptAt: Date.now() }));
}

/** Further: a match's texts as one UTF-8 Buffer with their offsets; seq is the index, order and type in typed arrays (the id is matchKey.seq). */
function asOneBuffer(derived: DerivedEvent[], i: number): unknown[] {
  const stored = asToday(derived, i) as { event: { type: string }; text: string; order: number }[];
  const bytes = Buffer.from(stored.map((s) => s.text).join(''));
  const offsets = new Uint32Array(stored.length + 1);
  let at = 0;
  stored.forEach((s, k) => { offsets[k] = at; at += Buffer.byteLength(s.text); });
  offsets[stored.length] = at;
  const orders = Float64Array.from(stored.map((s) => s.order));
  const types = Uint8Array.from(stored.map((s) => s.event.type.length)); // stands in for a type's index
  return [{ bytes, offsets, orders, types, storedAt: new Float64Array(stored.length), keptAt: new Float64Array(stored.length) }];
}

function heapOf(make: (i: number) => unknown[]): { bytes: number; events: number } {
  gc!(); gc!();
  const start = process.memoryUsage();
  const before = start.heapUsed + start.arrayBuffers;
  const held: unknown[][] = [];
  for (let i = 0; i < M; i++) held.push(make(i));
  gc!(); gc!();
  const usage = process.memoryUsage();
  const after = usage.heapUsed + usage.arrayBuffers;
  const events = derived.length * M;
  held.length = 0;
  return { bytes: after - before, events };
}

const derived = derivedEvents();
const textBytes = derived.length === 0 ? 0 : (asToday(derived, 0) as { text: string }[]).reduce((n, s) => n + s.text.length, 0) / derived.length;
const rows = [
  { how: 'before: envelope object + text', ...heapOf((i) => asToday(derived, i)) },
  { how: 'now: storedEvent(), text + head', ...heapOf((i) => asBytes(derived, i)) },
  { how: 'further: one Buffer per match', ...heapOf((i) => asOneBuffer(derived, i)) },
].map((r) => ({ how: r.how, matches: M, eventsPerMatch: derived.length, bytesPerEvent: Math.round(r.bytes / r.events), kbPerMatch: Math.round(r.bytes / M / 1024), meanTextChars: Math.round(textBytes) }));
for (const r of rows) jsonLine({ bench: 'event-memory', ...r });
console.log(table(rows, ['how', 'matches', 'eventsPerMatch', 'meanTextChars', 'bytesPerEvent', 'kbPerMatch']));
