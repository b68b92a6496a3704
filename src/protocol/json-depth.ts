// Nesting depth of JSON text, without parsing it. Used before JSON.parse on untrusted payloads:
// V8 parses any depth, but later recursive work on the value (JSON.stringify, copies, the
// serializer) overflows the stack on a deeply nested one. No real message nests deeper than 8.

/** Real messages nest at most 8 levels (toolsData.roundWinBox.sponsors[].roundCeremony[]). */
export const MAX_JSON_DEPTH = 32;

/** True when the text opens more than `max` arrays/objects at once (strings are skipped). */
export function jsonDepthExceeds(text: string, max = MAX_JSON_DEPTH): boolean {
  if (text.length <= max * 2 || !opensMoreThan(text, max)) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) {
      inString = true;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > max) return true;
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      depth--;
    }
  }
  return false;
}

/**
 * Whether the text holds more than `max` of `{` and `[` in all (strings included): text that does
 * not cannot nest deeper. Native searches, ~20× cheaper than the scan below, which only texts
 * with many brackets then need (most messages hold a few).
 */
function opensMoreThan(text: string, max: number): boolean {
  let n = 0;
  for (let i = text.indexOf('{'); i !== -1; i = text.indexOf('{', i + 1)) if (++n > max) return true;
  for (let i = text.indexOf('['); i !== -1; i = text.indexOf('[', i + 1)) if (++n > max) return true;
  return false;
}

/** The same check for an already parsed value (a Socket.IO payload sent as an object). */
export function valueDepthExceeds(value: unknown, max = MAX_JSON_DEPTH): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (max === 0) return true;
  for (const k in value as Record<string, unknown>) {
    if (valueDepthExceeds((value as Record<string, unknown>)[k], max - 1)) return true;
  }
  return false;
}
