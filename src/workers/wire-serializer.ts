// The match_data WebSocket message, serialized in one pass.
//
// A frame's JSON travels escaped as one string (./wire-text.ts). Serializing to JSON and then escaping
// that text walks 15 KB twice; this serializer is compiled once from the same schema as the JSON
// serializer (src/schemas/match-data.ts) and writes the escaped form directly (./escaped-json.ts;
// member names escaped at compile time, undefined members omitted).
// test/workers/wire-serializer.test.ts checks it over every state of the recorded match.
//
// Most of a frame does not change from one frame to the next: a player's card, the round records,
// the economy records, the tools. Those subtrees are cached: their escaped text is kept, keyed by the
// subtree's root object, until the engine marks the subtree changed (src/workers/match/dirty.ts); a
// changed player card is patched where its values changed (./subtree-patch.ts). wireSerializeFrame
// also says which parts of the frame are which subtree's text, for the delta encoder (src/codec/layout-delta.ts).
//
// The rest of a frame (~1.5 kB: top-level members, team scalars, text between subtrees) is kept per
// state as its previous frame's layout, reused with each subtree's current text and a new serverTime
// while no value there changed (./frame-leaves.ts compares ~150 of them; issue 28). A comparison, not
// marks: some forty rule sites in ten files write them, and a forgotten mark is a stale frame. A
// volatile member (a team's spentThisRound, which most scoreboard messages of a buy phase change) is
// a segment of its own, written anew from its holder in every frame, so that its change alone does
// not make the whole frame again.
import type { FrameLayout } from '../codec/layout-delta.js';
import { matchDataSchema, playerSchema, teamSchema, toolsSchema } from '../schemas/match-data.js';
import { any, bool, flat, keyLiteral, num, str } from './escaped-json.js';
import { compileLeaves } from './frame-leaves.js';
import { PREFIX, SUFFIX } from './wire-text.js';
import { storeText, textEntry, type SubtreeText } from './match/dirty.js';
import { compilePatcher } from './subtree-patch.js';
import { fromSkeleton, SegmentKind, skeletonOf } from './frame-skeleton.js';
import type { Match } from './match/match.js';

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
};

let counter = 0;
const fresh = (base: string) => `${base}${counter++}`;

/**
 * The frame being serialized with its layout (wireSerializeFrame), or null: cached subtrees then
 * append their text to the output as any other value.
 */
let collecting: FrameLayout | null = null;

/**
 * While collecting, for the frames made from a skeleton: each segment's maker (null for text between
 * subtrees; a cached subtree's textOf takes the subtree, a volatile member's text takes its holder)
 * and its kind.
 */
let collectingFns: (((v: never) => unknown) | null)[] = [];
let collectingKinds: SegmentKind[] = [];

function addSegment(layout: FrameLayout, key: object | null, text: string, bytes: number): void {
  layout.keys.push(key);
  layout.texts.push(text);
  layout.offsets.push(layout.total);
  layout.bytes.push(bytes);
  layout.total += bytes;
}

/**
 * A subtree serializer that reuses the subtree's last text until the engine marks the subtree
 * changed (src/workers/match/dirty.ts): no comparison, no copy of the values. `o` is the output so
 * far; while a frame's layout is collected, the text before the subtree and the subtree become
 * segments of the layout and the output starts again empty. `textOf` makes a changed subtree's text.
 */
function cachedSerializer(serialize: (v: unknown) => string, textOf: (v: object) => SubtreeText): (o: string, v: unknown) => string {
  return (o, v) => {
    if (typeof v !== 'object' || v === null) return o + serialize(v);
    const t = cachedText(v, textOf);
    const layout = collecting;
    if (layout === null) return o + t.text;
    const gap = flat(o);
    addSegment(layout, null, gap, Buffer.byteLength(gap));
    if (t.bytes < 0) t.bytes = Buffer.byteLength(t.text);
    addSegment(layout, v, t.text, t.bytes);
    collectingFns.push(null, textOf);
    collectingKinds.push(SegmentKind.Gap, SegmentKind.Subtree);
    return '';
  };
}

/** The subtree's cached text, made by `textOf` when the engine marked it changed. */
function cachedText(v: object, textOf: (v: object) => SubtreeText): SubtreeText {
  const t = textEntry(v);
  if (t !== undefined && !t.stale) return t;
  const layout = collecting;
  collecting = null; // a cached subtree inside this one is part of this one's text
  let made: SubtreeText;
  try {
    made = textOf(v);
  } finally {
    collecting = layout;
  }
  return storeText(v, t, made);
}

/** A changed subtree's text serialized whole. */
const wholeText = (serialize: (v: unknown) => string) => (v: object): SubtreeText => ({ text: flat(serialize(v)), bytes: -1, prev: null, edits: null, stale: false });

/**
 * Volatile members: scalars outside the cached subtrees that change with most messages, so that a
 * frame whose only other change is in a subtree would otherwise be serialized whole (a team's
 * `spentThisRound` changes with most scoreboard messages of a buy phase: with it volatile, 2,645
 * of the recorded match's 2,763 frames come from the skeleton instead of 1,729; bench/frame-path-ab.ts). While a frame's layout is collected, such a member's value is a segment of its
 * own, keyed by its holder (the object it is read from), which a frame from the skeleton writes
 * anew from the holder's current value; the skeleton depends on the holder, not the value
 * (./frame-leaves.ts).
 */
const volatileMembers = new Map<Schema, Set<string>>([[teamSchema as Schema, new Set(['spentThisRound'])]]);
const volatileFns: ((o: string, holder: Record<string, unknown>) => string)[] = [];
const isVolatile = (schema: Schema, name: string): boolean => volatileMembers.get(schema)?.has(name) === true;

/** The writer of one volatile member (`o`: the output so far), its value serialized by `serialize`. */
function volatileSerializer(name: string, serialize: (v: unknown) => string): (o: string, holder: Record<string, unknown>) => string {
  const text = (holder: unknown): string => {
    const x = (holder as Record<string, unknown>)[name];
    return x === null ? 'null' : serialize(x);
  };
  return (o, holder) => {
    const t = text(holder);
    const layout = collecting;
    if (layout === null) return o + t;
    const gap = flat(o);
    addSegment(layout, null, gap, Buffer.byteLength(gap));
    addSegment(layout, holder, t, Buffer.byteLength(t));
    collectingFns.push(null, text);
    collectingKinds.push(SegmentKind.Gap, SegmentKind.Volatile);
    return '';
  };
}

/** Subtrees worth caching, by schema object: compiled on first use. */
const cachedSchemas = new Map<Schema, number>();
const cachedFns: ((o: string, v: unknown) => string)[] = [];
/** Compiling the from-scratch serializer (tests only): no subtree is cached. */
let uncached = false;

/** JS statements appending the escaped serialization of the value in variable `v` to `o`. */
function gen(schema: Schema, v: string, root = false): string {
  const cacheId = root || uncached ? undefined : cachedSchemas.get(schema);
  if (cacheId !== undefined) return `o = cached[${cacheId}](o, ${v});`;
  const type = schema.type;
  if (type === 'string') return `o += str(${v});`;
  if (type === 'number' || type === 'integer') return `o += num(${v});`;
  if (type === 'boolean') return `o += bool(${v});`;
  if (type === 'array' && schema.items) {
    const i = fresh('i'), x = fresh('x');
    return `if (!Array.isArray(${v})) { o += any(${v}); } else { o += '['; for (let ${i} = 0; ${i} < ${v}.length; ${i}++) { if (${i}) o += ','; const ${x} = ${v}[${i}]; if (${x} === undefined || ${x} === null) { o += 'null'; continue; } ${gen(schema.items, x)} } o += ']'; }`;
  }
  if (type === 'object' && schema.additionalProperties === true) return `o += any(${v});`;
  if (type === 'object' && schema.properties) {
    const sep = fresh('s');
    let code = `if (${v} === null || typeof ${v} !== 'object') { o += any(${v}); } else { o += '{'; let ${sep} = '';`;
    for (const [name, prop] of Object.entries(schema.properties)) {
      const x = fresh('x');
      // A name starting with NUL is not read from the value but from the serializer's second
      // argument, named by the rest (serverTime).
      const read = name.startsWith('\u0000') ? 'extra' : `${v}[${JSON.stringify(name)}]`;
      const key = keyLiteral(name.startsWith('\u0000') ? name.slice(1) : name);
      if (!uncached && isVolatile(schema, name)) {
        volatileFns.push(volatileSerializer(name, compile(prop, true)));
        code += ` if (${read} !== undefined) { o += ${sep} + ${key}; ${sep} = ','; o = vol[${volatileFns.length - 1}](o, ${v}); }`;
        continue;
      }
      code += ` const ${x} = ${read}; if (${x} !== undefined) { o += ${sep} + ${key}; ${sep} = ','; if (${x} === null) o += 'null'; else { ${gen(prop, x)} } }`;
    }
    return code + ` o += '}'; }`;
  }
  if (type === 'object' && typeof schema.additionalProperties === 'object') {
    const sep = fresh('s'), k = fresh('k'), x = fresh('x');
    return `if (${v} === null || typeof ${v} !== 'object') { o += any(${v}); } else { o += '{'; let ${sep} = ''; for (const ${k} of Object.keys(${v})) { const ${x} = ${v}[${k}]; if (${x} === undefined) continue; o += ${sep} + str(${k}) + ':'; ${sep} = ','; if (${x} === null) o += 'null'; else { ${gen(schema.additionalProperties, x)} } } o += '}'; }`;
  }
  return `o += any(${v});`;
}

/**
 * Compiles a schema into (value) => escaped JSON text; `cache` names subtrees to cache, `patch` those
 * of them whose changed text is patched from the previous one (./subtree-patch.ts) rather than made whole.
 */
export function compileEscaped(schema: Schema, cache: Schema[] = [], patch: Schema[] = []): (value: unknown) => string {
  for (const sub of cache) {
    if (cachedSchemas.has(sub)) continue;
    cachedSchemas.set(sub, cachedFns.length);
    cachedFns.push((o) => o);
    const serialize = compile(sub, true);
    cachedFns[cachedSchemas.get(sub)!] = cachedSerializer(serialize, patch.includes(sub) ? compilePatcher(sub).text : wholeText(serialize));
  }
  return compile(schema, true);
}

function compile(schema: Schema, root: boolean): (value: unknown) => string {
  const body = `let o = ''; ${gen(schema, 'value', root)} return o;`;
  return new Function('str', 'num', 'bool', 'any', 'cached', 'vol', `return function serializeEscaped(value, extra) { ${body} };`)(str, num, bool, any, cachedFns, volatileFns) as (value: unknown) => string;
}


// The top level is the engine's snapshot plus serverTime, which is not engine state: it is
// compiled as a member read from the second argument, so the snapshot is never copied.
const SERVER_TIME = '\u0000serverTime';
const { serverTime: serverTimeSchema, ...stateProperties } = (matchDataSchema as Schema).properties!;
const teamProperties = (teamSchema as Schema).properties!;
const frameSchema: Schema = { ...(matchDataSchema as Schema), properties: { ...stateProperties, [SERVER_TIME]: serverTimeSchema } };
const serializeFrame = compileEscaped(frameSchema, [
  playerSchema as Schema,
  teamProperties.roundRecord,
  teamProperties.moneyRecord,
  toolsSchema as Schema,
], [playerSchema as Schema]) as (state: unknown, serverTime?: number) => string;
const sameLeaves = compileLeaves(frameSchema, (sub) => cachedSchemas.has(sub), isVolatile);

/** The match_data WebSocket message text of the match's current state. */
export function wireSerializeMatch(m: Match, serverTime: number): string {
  return flat(PREFIX + serializeFrame(m.liveState(), serverTime) + SUFFIX);
}

/** Where a frame's text comes from, for the delta against the next frame (src/codec/layout-delta.ts). */
export type { FrameLayout };
/** Frames made from a skeleton (tests and benchmarks read it). */
export { skeletonFrames } from './frame-skeleton.js';

export function emptyLayout(): FrameLayout {
  return { keys: [], texts: [], offsets: [], bytes: [], total: 0 };
}

/** A frame as one segment (a frame made without the one-pass serializer). */
export function wholeLayout(wire: string): FrameLayout {
  const layout = emptyLayout();
  addSegment(layout, null, wire, Buffer.byteLength(wire));
  return layout;
}

/** The match_data WebSocket message text of the match's current state, with its layout. */
export function wireSerializeFrame(m: Match, serverTime: number): { wire: string; layout: FrameLayout } {
  const layout = wireSerializeLayout(m, serverTime);
  return { wire: layout.texts.join(''), layout };
}

/**
 * The frame's layout alone: its text is the segments' texts joined, which the shard does only when
 * the text itself must go out (most frames travel as their delta: no 16.7 kB copy per frame).
 */
export function wireSerializeLayout(m: Match, serverTime: number): FrameLayout {
  const state = m.liveState();
  const skeleton = skeletonOf(state);
  if (sameLeaves(state, skeleton.leaves) && skeleton.layout !== null) return fromSkeleton(skeleton, serverTime);
  skeleton.layout = null; // until this frame is made
  const layout = emptyLayout();
  collecting = layout;
  collectingFns = [];
  collectingKinds = [];
  let rest: string;
  try {
    rest = serializeFrame(state, serverTime);
  } finally {
    collecting = null;
  }
  rest = flat(rest + SUFFIX);
  // The tail ends with serverTime, the last member: its value (with the closing text) is a segment of
  // its own, so that the rest of the tail, unchanged from frame to frame, is the same string in each.
  const time = num(serverTime) + '}' + SUFFIX;
  const cut = rest.length - time.length;
  const reusable = layout.keys.length > 0 && rest.endsWith(time) && rest.startsWith(SERVER_TIME_KEY, cut - SERVER_TIME_KEY.length);
  if (reusable) {
    const head = flat(rest.slice(0, cut));
    addSegment(layout, null, head, Buffer.byteLength(head));
    addSegment(layout, null, time, time.length);
  } else {
    addSegment(layout, null, rest, Buffer.byteLength(rest));
  }
  // The prefix joins the first segment (always text between subtrees, maybe empty). ASCII.
  layout.texts[0] = PREFIX + layout.texts[0];
  layout.bytes[0] += PREFIX.length;
  for (let k = 1; k < layout.offsets.length; k++) layout.offsets[k] += PREFIX.length;
  layout.total += PREFIX.length;
  // The next frame with the same values outside the subtrees reuses this layout: all but serverTime's
  // segment, written anew.
  if (reusable) {
    // The text between subtrees only: the subtrees' texts of this frame are not kept alive by it.
    skeleton.layout = { keys: layout.keys.slice(), texts: layout.texts.map((t, k) => (layout.keys[k] === null ? t : '')), offsets: [], bytes: layout.bytes.slice(), total: 0 };
    skeleton.fns = collectingFns;
    skeleton.kinds = collectingKinds;
  }
  collectingFns = [];
  collectingKinds = [];
  return layout;
}

/** The escaped `"serverTime":` the tail ends with before its value. */
const SERVER_TIME_KEY = JSON.parse(keyLiteral('serverTime')) as string;

/**
 * The frame serialized from scratch, without any cached subtree text. Tests only: the cached
 * serialization must equal it after every change (a rule that forgets its mark fails).
 */
export function wireSerializeFromScratch(m: Match, serverTime: number): string {
  uncached = true;
  try {
    if (!fromScratch) fromScratch = compile(frameSchema, true) as (state: unknown, serverTime?: number) => string;
  } finally {
    uncached = false;
  }
  return PREFIX + fromScratch(m.liveState(), serverTime) + SUFFIX;
}
let fromScratch: ((state: unknown, serverTime?: number) => string) | undefined;
