// Values written as JSON text escaped for use inside a JSON string (a match_data frame's one string
// argument, ./wire-serializer.ts): what its compiled serializers call for each value. Semantics
// follow JSON.stringify (undefined as null here: the caller omits undefined members; non-finite
// numbers as null; objects through JSON.stringify). And flat(), which the serializer applies to the
// texts it keeps (a string built by `+=` is read many times after).

/** Characters that make a string's JSON form differ from '"' + s + '"'. */
const SPECIAL = /["\\\u0000-\u001f\ud800-\udfff]/;
const QUOTE_OR_BACKSLASH = /["\\]/;

/** JSON text escaped for use inside a JSON string. */
export function escapeJson(json: string): string {
  return QUOTE_OR_BACKSLASH.test(json) ? JSON.stringify(json).slice(1, -1) : json;
}

/** Any value, as JSON.stringify writes it, escaped. */
export function any(v: unknown): string {
  const json = JSON.stringify(v);
  return json === undefined ? 'null' : escapeJson(json);
}

export function str(v: unknown): string {
  if (typeof v !== 'string') return any(v);
  return SPECIAL.test(v) ? escapeJson(JSON.stringify(v)) : '\\"' + v + '\\"';
}

export function num(v: unknown): string {
  if (typeof v !== 'number') return any(v);
  return Number.isFinite(v) ? '' + v : 'null';
}

export function bool(v: unknown): string {
  return v === true ? 'true' : v === false ? 'false' : any(v);
}

/** Escaped `"name":` as a JS string literal. */
export const keyLiteral = (name: string) => JSON.stringify(escapeJson(JSON.stringify(name)) + ':');

/**
 * A string built by many `+=` is a tree of pieces (a V8 cons string); every later read of it
 * (Buffer.from, postMessage, being part of a larger string) walks that tree again. Converting it
 * to a number makes V8 flatten it in place once (the trick of the flatstr package).
 */
export function flat(s: string): string {
  void ((s as unknown as number) | 0);
  return s;
}
