// The match_data WebSocket message, serialized in one pass.
//
// A frame travels as 42["match_data","<the frame's JSON, escaped as a JSON string>"] (the overlay
// JSON.parses the string argument, docs/client-contract.md 1.2). Serializing to JSON and then escaping that
// text with JSON.stringify walks 15 KB twice; this serializer is compiled once from the same
// schema as the JSON serializer (src/schemas/match-data.ts) and writes the escaped form directly:
// member names are escaped at compile time, plain string values only need their quotes escaped.
// Semantics follow JSON.stringify (undefined members omitted, non-finite numbers as null; open
// objects are passed through JSON.stringify as received). test/wire-serializer.test.ts checks it
// over every state of the recorded match.
//
// Most of a frame does not change from one frame to the next: a player's card, the round records,
// the tools. Those subtrees are cached: their escaped text is kept with a plain copy of the values
// it was made from, and reused while a deep comparison (no allocation but Object.keys) finds the
// values unchanged. Comparing costs a fraction of serializing.
import { matchDataSchema, playerSchema, teamSchema, toolsSchema } from '../schemas/match-data.js';
import type { Match } from './match/match.js';

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
};

/** Characters that make a string's JSON form differ from '"' + s + '"'. */
const SPECIAL = /["\\\u0000-\u001f\ud800-\udfff]/;
const QUOTE_OR_BACKSLASH = /["\\]/;

/** JSON text escaped for use inside a JSON string. */
function escapeJson(json: string): string {
  return QUOTE_OR_BACKSLASH.test(json) ? JSON.stringify(json).slice(1, -1) : json;
}

/** Any value, as JSON.stringify writes it, escaped. */
function any(v: unknown): string {
  const json = JSON.stringify(v);
  return json === undefined ? 'null' : escapeJson(json);
}

function str(v: unknown): string {
  if (typeof v !== 'string') return any(v);
  return SPECIAL.test(v) ? escapeJson(JSON.stringify(v)) : '\\"' + v + '\\"';
}

function num(v: unknown): string {
  if (typeof v !== 'number') return any(v);
  return Number.isFinite(v) ? '' + v : 'null';
}

function bool(v: unknown): string {
  return v === true ? 'true' : v === false ? 'false' : any(v);
}

/** Escaped `"name":` as a JS string literal. */
const keyLiteral = (name: string) => JSON.stringify(escapeJson(JSON.stringify(name)) + ':');

let counter = 0;
const fresh = (base: string) => `${base}${counter++}`;

/**
 * A string built by many `+=` is a tree of pieces (a V8 cons string); every later read of it
 * (Buffer.from, postMessage, being part of a larger string) walks that tree again. Converting it
 * to a number makes V8 flatten it in place once (the trick of the flatstr package).
 */
function flat(s: string): string {
  void ((s as unknown as number) | 0);
  return s;
}

/** Values equal as JSON (NaN equals NaN: both serialize as null). */
function sameDeep(v: unknown, s: unknown): boolean {
  if (v === s) return true;
  if (typeof v !== 'object' || v === null || typeof s !== 'object' || s === null) return typeof v === 'number' && typeof s === 'number' && v !== v && s !== s;
  if (Array.isArray(v)) {
    if (!Array.isArray(s) || v.length !== s.length) return false;
    for (let i = 0; i < v.length; i++) if (!sameDeep(v[i], s[i])) return false;
    return true;
  }
  if (Array.isArray(s)) return false;
  const keys = Object.keys(v);
  if (keys.length !== Object.keys(s).length) return false;
  for (const k of keys) if (!sameDeep((v as Record<string, unknown>)[k], (s as Record<string, unknown>)[k])) return false;
  return true;
}

function copyDeep(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return v.map(copyDeep);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) out[k] = copyDeep((v as Record<string, unknown>)[k]);
  return out;
}

/**
 * JS statements returning false from the enclosing function when `a` (the value) and `b` (the
 * shadow copy) differ in what the schema serializes. Closed objects compare their known members
 * directly (no Object.keys, monomorphic access); maps and open objects compare deeply.
 */
function genSame(schema: Schema, a: string, b: string): string {
  const type = schema.type;
  if (type === 'string' || type === 'boolean') return `if (${a} !== ${b}) return false;`;
  if (type === 'number' || type === 'integer') return `if (${a} !== ${b} && !(${a} !== ${a} && ${b} !== ${b})) return false;`;
  if (type === 'object' && schema.properties && schema.additionalProperties !== true) {
    let code = `if (${a} !== ${b}) { if (${a} === null || typeof ${a} !== 'object' || ${b} === null || typeof ${b} !== 'object') return false;`;
    for (const [name, prop] of Object.entries(schema.properties)) {
      const x = fresh('a'), y = fresh('b');
      code += ` const ${x} = ${a}[${JSON.stringify(name)}], ${y} = ${b}[${JSON.stringify(name)}]; ${genSame(prop, x, y)}`;
    }
    return code + ' }';
  }
  if (type === 'object' && typeof schema.additionalProperties === 'object') {
    // A map (counts by weapon or player): for...in keeps it free of allocations.
    const k = fresh('k'), na = fresh('n'), nb = fresh('n'), x = fresh('a'), y = fresh('b');
    return `if (${a} !== ${b}) { if (${a} === null || typeof ${a} !== 'object' || ${b} === null || typeof ${b} !== 'object') return false; let ${na} = 0, ${nb} = 0; for (const ${k} in ${a}) { ${na}++; const ${x} = ${a}[${k}], ${y} = ${b}[${k}]; ${genSame(schema.additionalProperties, x, y)} } for (const ${k} in ${b}) ${nb}++; if (${na} !== ${nb}) return false; }`;
  }
  if (type === 'array' && schema.items) {
    const i = fresh('i'), x = fresh('a'), y = fresh('b');
    return `if (${a} !== ${b}) { if (!Array.isArray(${a}) || !Array.isArray(${b}) || ${a}.length !== ${b}.length) return false; for (let ${i} = 0; ${i} < ${a}.length; ${i}++) { const ${x} = ${a}[${i}], ${y} = ${b}[${i}]; ${genSame(schema.items, x, y)} } }`;
  }
  return `if (!sameDeep(${a}, ${b})) return false;`;
}

/** A JS expression copying the value `a` as deep as the schema knows it (the shadow copy). */
function genCopy(schema: Schema, a: string): string {
  const type = schema.type;
  if (type === 'string' || type === 'boolean' || type === 'number' || type === 'integer') return a;
  if (type === 'object' && schema.properties && schema.additionalProperties !== true) {
    const members = Object.entries(schema.properties).map(([name, prop]) => `${JSON.stringify(name)}: ${genCopy(prop, `${a}[${JSON.stringify(name)}]`)}`);
    return `(${a} === null || typeof ${a} !== 'object' ? ${a} : { ${members.join(', ')} })`;
  }
  if (type === 'array' && schema.items && (schema.items.type === 'string' || schema.items.type === 'number')) return `(Array.isArray(${a}) ? ${a}.slice() : ${a})`;
  return `copyDeep(${a})`;
}

/** A subtree serializer that reuses its last output while the subtree's values are unchanged. */
function cachedSerializer(schema: Schema, serialize: (v: unknown) => string): (v: unknown) => string {
  const same = new Function('sameDeep', `return function same(a, b) { ${genSame(schema, 'a', 'b')} return true; };`)(sameDeep) as (a: unknown, b: unknown) => boolean;
  const copy = new Function('copyDeep', `return function copy(a) { return ${genCopy(schema, 'a')}; };`)(copyDeep) as (a: unknown) => unknown;
  const cache = new WeakMap<object, { shadow: unknown; out: string }>();
  return (v) => {
    if (typeof v !== 'object' || v === null) return serialize(v);
    const hit = cache.get(v);
    if (hit && same(v, hit.shadow)) return hit.out;
    const out = flat(serialize(v));
    cache.set(v, { shadow: copy(v), out });
    return out;
  };
}

/** Subtrees worth caching, by schema object: compiled on first use. */
const cachedSchemas = new Map<Schema, number>();
const cachedFns: ((v: unknown) => string)[] = [];

/** JS statements appending the escaped serialization of the value in variable `v` to `o`. */
function gen(schema: Schema, v: string, root = false): string {
  const cacheId = root ? undefined : cachedSchemas.get(schema);
  if (cacheId !== undefined) return `o += cached[${cacheId}](${v});`;
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

/** Compiles a schema into (value) => escaped JSON text; `cache` names subtrees to cache. */
export function compileEscaped(schema: Schema, cache: Schema[] = []): (value: unknown) => string {
  for (const sub of cache) {
    if (cachedSchemas.has(sub)) continue;
    cachedSchemas.set(sub, cachedFns.length);
    cachedFns.push(() => '');
    cachedFns[cachedSchemas.get(sub)!] = cachedSerializer(sub, compile(sub, true));
  }
  return compile(schema, true);
}

function compile(schema: Schema, root: boolean): (value: unknown) => string {
  const body = `let o = ''; ${gen(schema, 'value', root)} return o;`;
  return new Function('str', 'num', 'bool', 'any', 'cached', `return function serializeEscaped(value, extra) { ${body} };`)(str, num, bool, any, cachedFns) as (value: unknown) => string;
}

// The top level is the engine's snapshot plus serverTime, which is not engine state: it is
// compiled as a member read from the second argument, so the snapshot is never copied.
const SERVER_TIME = '\u0000serverTime';
const { serverTime: serverTimeSchema, ...stateProperties } = (matchDataSchema as Schema).properties!;
const teamProperties = (teamSchema as Schema).properties!;
const serializeFrame = compileEscaped({ ...(matchDataSchema as Schema), properties: { ...stateProperties, [SERVER_TIME]: serverTimeSchema } }, [
  playerSchema as Schema,
  teamProperties.roundRecord,
  toolsSchema as Schema,
]) as (state: unknown, serverTime?: number) => string;

/** The match_data WebSocket message text of the match's current state. */
export function wireSerializeMatch(m: Match, serverTime: number): string {
  return flat('42["match_data","' + serializeFrame(m.snapshot(), serverTime) + '"]');
}
