// A cached subtree's text patched where its values changed, instead of serialized again (issue 38,
// stage 6 of docs/perf/message-path.md: a frame that costs what the message changed).
//
// A player card is ~1.2 kB of escaped JSON, and most messages that touch it (src/workers/match/dirty.ts)
// change a few numbers in it: money, ult points, a kill count. Serializing the card again cost about
// as much as JSON.stringify of it, and the delta encoder then compared the new text with the old one
// byte by byte to find those few numbers again. Here the card's text is kept with where each value's
// text lies in it. When the card is touched, a walk compiled from the same schema as the serializer
// reads its values in the serializer's order and compares them with the previous ones (`===`):
// - the structure is the same (members present, array lengths, map keys, values of the schema's
//   kinds): the text is the previous text with the changed values' texts replaced, and the edits
//   (where, in the old text and the new) go with it to the delta encoder (src/codec/layout-delta.ts),
//   which writes the unchanged stretches as back-references without comparing a byte. No value
//   changed: the previous string itself, which the encoder sees as unchanged.
// - anything else (a member added, a map key, a value the serializer writes with JSON.stringify
//   because it is not of the schema's kind): the card is serialized again, as before.
// The text is the serializer's, character for character: built by a twin of wire-serializer.ts's
// gen() that also records where each value went. test/workers/subtree-patch.test.ts checks both
// over every state of the recorded match, and the serializer-marks test checks every frame.
import type { EditsOf, FrameLayout, SegmentEdits } from '../codec/layout-delta.js';
import { any, bool, flat, keyLiteral, num, str } from './escaped-json.js';
import { cachedTextOf, type SubtreeText } from './match/dirty.js';

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
};

/**
 * What the last serialization of one subtree showed: its text, each value and where its text lies.
 * Made once per build at its exact length (a card's is ~900 bytes; a match has ten): a value's text
 * length is not kept, it is its old value's text again when the value changes.
 */
interface PatchState {
  text: string;
  /** The values in the serializer's order. */
  vals: unknown[];
  /**
   * Where each value's text starts in `text` (UTF-16 units), one character a value (2 bytes, not the
   * 8 of an array element): a card's text is far below 65,536 characters; a longer one is not patched.
   */
  offs: string;
  /** The structure: presence of members that are not scalars, array lengths, map keys, value kinds (compared, never written). */
  struct: unknown[];
}

/**
 * Where a build records, copied to the state at its exact length (`n` values, `m` structure marks).
 * The arrays only grow: a store past the end of one truncated by a shorter card would deoptimize
 * the compiled build at that store (V8: "out of bounds"), and it is one of the largest functions to compile again.
 */
interface Scratch { vals: unknown[]; offs: number[]; struct: unknown[]; n: number; m: number }
const scratch: Scratch = { vals: [], offs: [], struct: [], n: 0, m: 0 };
/** patch()'s offsets as numbers while they shift (its own: the build's stay as they are). */
const shifted: number[] = [];
const MAX_OFFSET = 0xffff;

/**
 * The edits a cached subtree's current text was patched with (layoutDelta's EditsOf), while `text`
 * is still that text. Handed over once: the subtree's text lets go of them (and of the previous text,
 * which an idle match would otherwise keep for every card), and `handed` holds them until the next
 * call. The shard encodes a delta of every frame, and layoutDelta asks for the edits of every changed
 * segment with a key, so each patch's edits are asked for once.
 */
export const subtreeEdits: EditsOf = (key, text) => {
  const t = cachedTextOf(key);
  if (t === undefined || t.text !== text || t.edits === null) return undefined;
  handed.prev = t.prev;
  handed.edits = t.edits;
  t.prev = null;
  t.edits = null;
  return handed;
};
const handed: SegmentEdits = { prev: null, edits: null };

/**
 * A frame whose delta is not encoded (COMPRESSION=false): no encoder asks for its subtrees' edits,
 * so they are let go here, and with them each patched card's previous text (~1.2 kB a card).
 */
export function dropEdits(layout: FrameLayout): void {
  for (let k = 0; k < layout.keys.length; k++) {
    const key = layout.keys[k];
    if (key !== null) subtreeEdits(key, layout.texts[k]);
  }
}

const FMT = [str, num, bool, any];
const enum Fmt { Str, Num, Bool, Any }

/** Structure marks (unique: no value is === to them). */
const ARR = Symbol('array');
const NUL = Symbol('null');
const ITEM = Symbol('item');
const END = Symbol('end');
const OBJ = Symbol('object');
/** A member left out (undefined), among the values. */
const ABSENT = Symbol('absent');

let counter = 0;
const fresh = (base: string) => `${base}${counter++}`;

const scalarFmt = (schema: Schema): Fmt | undefined => {
  const type = schema.type;
  if (type === 'string') return Fmt.Str;
  if (type === 'number' || type === 'integer') return Fmt.Num;
  if (type === 'boolean') return Fmt.Bool;
  // A union of scalar types (numOrNull): the serializer writes it with any(), i.e. JSON.stringify.
  if (Array.isArray(type) && type.every((t) => t === 'number' || t === 'integer' || t === 'boolean' || t === 'string' || t === 'null')) return Fmt.Any;
  return undefined;
};

/**
 * JS statements for the value in `v`. `build`: append its escaped text to `o` (exactly as
 * wire-serializer.ts gen() does) and record values and structure; else compare with the recorded
 * ones: `return false` when the structure differs, each changed value's index and format pushed on `ch`.
 */
function gen(schema: Schema, v: string, build: boolean): string {
  const G = (text: string) => (build ? `o += ${text};` : '');
  const S = (val: string) => (build ? `struct[m++] = (${val});` : `if (struct[m++] !== (${val})) return false;`);
  /** What the serializer writes with any(): never patched. */
  const U = build ? `struct[m++] = OBJ; o += any(${v});` : 'return false;';
  const fmt = scalarFmt(schema);
  if (fmt !== undefined) {
    if (build) return `{ vals[n] = ${v}; offs[n] = o.length; n++; o += F[${fmt}](${v}); }`;
    // A value of another kind than the schema's (an object) is written with JSON.stringify: its
    // identity says nothing of its text, so it is never patched, nor patched away from.
    // ABSENT (a member left out) to or from a value is a change of structure.
    return `{ const y = ${v}, x0 = vals[n]; if (typeof y === 'object' && y !== null) return false; if (x0 !== y) { if (typeof x0 === 'object' && x0 !== null || x0 === ABSENT || y === ABSENT) return false; vals[n] = y; ch.push(n, ${fmt}, x0); } n++; }`;
  }
  const type = schema.type;
  if (type === 'array' && schema.items) {
    const i = fresh('i'), x = fresh('x');
    return `if (!Array.isArray(${v})) { ${U} } else { ${S('ARR')} ${S(`${v}.length`)} ${G("'['")} for (let ${i} = 0; ${i} < ${v}.length; ${i}++) { ${G(`(${i} ? ',' : '')`)} const ${x} = ${v}[${i}]; if (${x} === undefined || ${x} === null) { ${S('NUL')} ${G("'null'")} continue; } ${S('ITEM')} ${gen(schema.items, x, build)} } ${G("']'")} }`;
  }
  if (type === 'object' && schema.properties && schema.additionalProperties !== true) {
    const sep = fresh('s');
    let code = `if (${v} === null || typeof ${v} !== 'object') { ${U} } else { ${G("'{'")} ${build ? `let ${sep} = '';` : ''}`;
    for (const [name, prop] of Object.entries(schema.properties)) {
      if (name.startsWith('\u0000')) throw new Error(`subtree-patch: member ${JSON.stringify(name)} is not read from the value`);
      const x = fresh('x');
      const key = keyLiteral(name);
      const glue = build ? `o += ${sep} + ${key}; ${sep} = ',';` : '';
      code += ` const ${x} = ${v}[${JSON.stringify(name)}];`;
      // A scalar member is one value, ABSENT when it is left out (its presence kept with the values,
      // not as structure); its null is a value like any other (the serializer writes 'null' for it,
      // as F[fmt](null) does).
      if (scalarFmt(prop) !== undefined) {
        code += build
          ? ` if (${x} !== undefined) { ${glue} ${gen(prop, x, true)} } else { vals[n] = ABSENT; offs[n] = 0; n++; }`
          : ` { const ${x}v = ${x} === undefined ? ABSENT : ${x}; ${gen(prop, `${x}v`, false)} }`;
      } else {
        code += ` ${S(`${x} === undefined`)} if (${x} !== undefined) { ${glue} if (${x} === null) { ${S('NUL')} ${G("'null'")} } else { ${S('ITEM')} ${gen(prop, x, build)} } }`;
      }
    }
    return code + ` ${G("'}'")} }`;
  }
  if (type === 'object' && typeof schema.additionalProperties === 'object') {
    const sep = fresh('s'), k = fresh('k'), x = fresh('x');
    const ap = schema.additionalProperties;
    const value = scalarFmt(ap) !== undefined
      ? gen(ap, x, build)
      : `if (${x} === null) { ${S('NUL')} ${G("'null'")} } else { ${S('ITEM')} ${gen(ap, x, build)} }`;
    return `if (${v} === null || typeof ${v} !== 'object') { ${U} } else { ${G("'{'")} ${build ? `let ${sep} = '';` : ''} for (const ${k} of Object.keys(${v})) { const ${x} = ${v}[${k}]; if (${x} === undefined) continue; ${S(k)} ${build ? `o += ${sep} + str(${k}) + ':'; ${sep} = ',';` : ''} ${value} } ${S('END')} ${G("'}'")} }`;
  }
  return U; // an open object, or a schema the serializer writes with any()
}

export interface SubtreePatcher {
  /**
   * The subtree's escaped text, patched from its previous one where that is possible (`prev` and
   * `edits` then say how: src/workers/match/dirty.ts SubtreeText), else made whole.
   */
  text(value: object): SubtreeText;
}

/** A patcher for subtrees of `schema` (a closed schema without cached subtrees inside, as a player card). */
export function compilePatcher(schema: Schema): SubtreePatcher {
  const build = new Function('F', 'str', 'any', 'ARR', 'NUL', 'ITEM', 'END', 'OBJ', 'ABSENT',
    `return function buildSubtree(value, st) { let o = ''; let n = 0; let m = 0; const vals = st.vals, offs = st.offs, struct = st.struct; ${gen(schema, 'value', true)} st.n = n; st.m = m; return o; };`,
  )(FMT, str, any, ARR, NUL, ITEM, END, OBJ, ABSENT) as (value: unknown, st: Scratch) => string;
  const check = new Function('F', 'str', 'any', 'ARR', 'NUL', 'ITEM', 'END', 'OBJ', 'ABSENT',
    `return function checkSubtree(value, st, ch) { let n = 0; let m = 0; const vals = st.vals, struct = st.struct; ${gen(schema, 'value', false)} return n === vals.length && m === struct.length; };`,
  )(FMT, str, any, ARR, NUL, ITEM, END, OBJ, ABSENT) as (value: unknown, st: PatchState, ch: unknown[]) => boolean;

  const states = new WeakMap<object, PatchState>();
  const changed: unknown[] = [];

  return {
    text(value) {
      const st = states.get(value);
      changed.length = 0;
      if (st !== undefined && check(value, st, changed)) {
        const patched = patch(st, changed);
        if (st.text.length > MAX_OFFSET) states.delete(value); // its offsets no longer fit: made whole next time
        return patched;
      }
      const text = flat(build(value, scratch));
      if (text.length <= MAX_OFFSET) states.set(value, { text, vals: scratch.vals.slice(0, scratch.n), offs: String.fromCharCode(...scratch.offs.slice(0, scratch.n)), struct: scratch.struct.slice(0, scratch.m) });
      else states.delete(value);
      return { text, bytes: -1, prev: null, edits: null, stale: false };
    },
  };
}

/** The state's text with the changed values' texts replaced (`changed`: index, format, old value triples in order). */
function patch(st: PatchState, changed: unknown[]): SubtreeText {
  const old = st.text;
  const { vals } = st;
  const offs = shifted;
  let text = '';
  let from = 0;
  let shift = 0;
  let edits: number[] | null = null;
  for (let c = 0; c < changed.length; c += 3) {
    const n = changed[c] as number;
    const fmt = FMT[changed[c + 1] as Fmt];
    const t = fmt(vals[n]);
    const start = st.offs.charCodeAt(n);
    const len = fmt(changed[c + 2]).length; // the old value's text, which is there
    if (t.length === len && old.startsWith(t, start)) continue; // the same text (NaN again, 1 and 1.0)
    if (edits === null) {
      edits = [];
      offs.length = 0;
      for (let k = 0; k < st.offs.length; k++) offs.push(st.offs.charCodeAt(k));
    }
    for (let k = n + 1; k < offs.length; k++) offs[k] += t.length - len;
    const end = start + len;
    text += old.slice(from, start) + t;
    edits.push(start, end, start + shift, start + shift + t.length);
    shift += t.length - len;
    from = end;
  }
  if (edits === null) return { text: old, bytes: -1, prev: null, edits: null, stale: false };
  st.text = flat(text + old.slice(from));
  st.offs = String.fromCharCode(...offs);
  return { text: st.text, bytes: -1, prev: old, edits, stale: false };
}
