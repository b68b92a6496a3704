// Where the standby's held data takes over from the primary's (docs/reliability.md, "A standby
// observer"). Two observers of one game send the same events but not byte-identical envelopes
// (their own obsName, their own receive times), so messages are compared by content: the type and
// the data, never the envelope. The cut is the standby's copy of the primary's last applied message
// (the last few must agree, so a repeated scoreboard row cannot place it early); everything the
// standby sent after it is applied, in order. Without such a copy (the standby's window does not
// reach back that far, or the two diverged), a held message is applied unless the primary's recent
// messages contain the same content: an event is never applied twice, at worst a repeated snapshot
// row is skipped, which the next row corrects.

/** A held message of the standby: the payload as received and its content key. */
export interface Held { raw: string; key: string; at: number }

/** How many of the primary's last messages must agree with the standby's copies around the cut. */
const AGREE = 4;

/** A short key of a message's content (type and data): a 53-bit hash of their JSON text. */
export function contentKey(type: string, data: unknown): string {
  const text = `${type}\u0000${JSON.stringify(data) ?? ''}`;
  let h1 = 0xdeadbeef, h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

/**
 * The envelope of an observer payload as far as the standby needs it: a JSON object of this group
 * with a string type. Null: not a valid observer message (counted, never held).
 */
export function parseEnvelope(raw: string, groupCode: string): { type: string; data: unknown } | null {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return null;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const v = value as { type?: unknown; data?: unknown; groupCode?: unknown };
  if (typeof v.type !== 'string' || v.groupCode !== groupCode) return null;
  return { type: v.type, data: v.data };
}

/**
 * The held messages to apply when the standby takes over, given the content keys of the primary's
 * last applied messages (oldest first), and how they were chosen.
 */
export function afterCut(primary: readonly string[], held: readonly Held[]): { apply: Held[]; how: 'cut' | 'content' | 'all' } {
  if (primary.length === 0) return { apply: [...held], how: 'all' };
  const last = primary.length - 1;
  for (let j = held.length - 1; j >= 0; j--) {
    if (held[j].key !== primary[last]) continue;
    let agree = true;
    for (let k = 1; k < AGREE && k <= j && k <= last; k++) {
      if (held[j - k].key !== primary[last - k]) { agree = false; break; }
    }
    if (agree) return { apply: held.slice(j + 1), how: 'cut' };
  }
  const seen = new Set(primary);
  return { apply: held.filter((h) => !seen.has(h.key)), how: 'content' };
}
