// The values a frame shows outside its cached subtrees, compared with those of the state's previous
// frame (wire-serializer.ts, "skeleton"; issue 28): a walk compiled from the same schema as the
// serializer, in the same order, that reads every value the serializer would write there and
// compares it with `===` against the previous walk's (stored in place: one array per state, no
// allocation). Cached subtrees count by their root object (their text is the dirty marks' business);
// what the serializer writes with JSON.stringify (open objects, values of another type than the
// schema's) by that text; tags mark arrays, objects and maps, so that equal sequences are equal text.
// A volatile member (a scalar the serializer writes as a segment of its own) counts by its holder
// object and whether it is there, not by its value.

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
};

/** Whether the member `name` of objects of `schema` is a volatile member (wire-serializer.ts): not a leaf of the skeleton. */
export type Volatile = (schema: Schema, name: string) => boolean;

let counter = 0;
const fresh = (base: string) => `${base}${counter++}`;

/** Structure tags of the leaves walk (unique: no value is === to them). */
const ARR = Symbol('array');
const OBJ = Symbol('object');
const END = Symbol('end');
/** A value the serializer writes with JSON.stringify when it is an object (any()): compared by that text. */
function leaf(v: unknown): unknown {
  return typeof v === 'object' && v !== null ? JSON.stringify(v) : v;
}

/** What genLeaves walks: a list, an object of named members, a map; anything else is one leaf (`leaf(value)`). */
const isList = (schema: Schema): boolean => schema.type === 'array' && schema.items !== undefined;
const isRecord = (schema: Schema): boolean => schema.type === 'object' && schema.additionalProperties !== true && schema.properties !== undefined;
const isMap = (schema: Schema): boolean => schema.type === 'object' && typeof schema.additionalProperties === 'object';
const isScalar = (schema: Schema): boolean => !isList(schema) && !isRecord(schema) && !isMap(schema);

/**
 * JS statements comparing the values the frame shows outside cached subtrees with `p` from `i` on
 * (and storing the new ones there): each leaf, each cached subtree's root object (its text is the
 * cache's business), and tags for the structure, so that equal sequences serialize to equal text.
 */
function genLeaves(schema: Schema, v: string, cached: (s: Schema) => boolean, volatile: Volatile, root = false): string {
  const L = (x: string) => `{ const y = ${x}; if (p[i] !== y) { same = false; p[i] = y; } i++; }`;
  if (!root && cached(schema)) return L(v);
  if (isList(schema)) {
    const k = fresh('i'), x = fresh('x');
    return `if (!Array.isArray(${v})) ${L(`leaf(${v})`)} else { ${L('ARR')} ${L(`${v}.length`)} for (let ${k} = 0; ${k} < ${v}.length; ${k}++) { const ${x} = ${v}[${k}]; if (${x} === undefined || ${x} === null) { ${L(x)} continue; } ${genLeaves(schema.items!, x, cached, volatile)} } }`;
  }
  if (isRecord(schema)) {
    let code = `if (${v} === null || typeof ${v} !== 'object') ${L(`leaf(${v})`)} else { ${L('OBJ')}`;
    for (const [name, prop] of Object.entries(schema.properties!)) {
      if (name.startsWith('\u0000')) continue; // serverTime: the frame's tail, written anew every time
      const x = fresh('x');
      if (volatile(schema, name)) {
        // A member written as a segment of its own, from its holder's current value (wire-serializer.ts):
        // what the skeleton depends on is the holder (the object the value is read from) and whether
        // the member is there at all.
        code += ` ${L(v)} ${L(`${v}[${JSON.stringify(name)}] === undefined`)}`;
        continue;
      }
      // A scalar member is one leaf whatever it holds (leaf() passes undefined and null through):
      // one comparison in the compiled code, not one for null and another for a value.
      if (isScalar(prop) && !cached(prop)) {
        code += ` ${L(`leaf(${v}[${JSON.stringify(name)}])`)}`;
        continue;
      }
      code += ` const ${x} = ${v}[${JSON.stringify(name)}]; if (${x} === undefined || ${x} === null) ${L(x)} else { ${genLeaves(prop, x, cached, volatile)} }`;
    }
    return code + ' }';
  }
  if (isMap(schema)) {
    const k = fresh('k'), x = fresh('x');
    return `if (${v} === null || typeof ${v} !== 'object') ${L(`leaf(${v})`)} else { ${L('OBJ')} for (const ${k} of Object.keys(${v})) { const ${x} = ${v}[${k}]; if (${x} === undefined) continue; ${L(k)} if (${x} === null) ${L('null')} else { ${genLeaves(schema.additionalProperties as Schema, x, cached, volatile)} } } ${L('END')} }`;
  }
  return L(`leaf(${v})`); // a scalar, or an open object (JSON.stringify'd by the serializer: compared by that text)
}

/** (value, previous leaves) => whether the frame outside cached subtrees shows the same values; `p` then holds the new ones. */
export function compileLeaves(schema: Schema, cached: (s: Schema) => boolean, volatile: Volatile = () => false): (value: unknown, p: unknown[]) => boolean {
  const body = `let i = 0; let same = true; ${genLeaves(schema, 'value', cached, volatile, true)} if (p.length !== i) { same = false; p.length = i; } return same;`;
  return new Function('leaf', 'ARR', 'OBJ', 'END', `return function sameLeaves(value, p) { ${body} };`)(leaf, ARR, OBJ, END) as (value: unknown, p: unknown[]) => boolean;
}
