// The key every per-address cap counts by (MAX_CONNECTIONS_PER_ADDRESS, MAX_SOCKETS_PER_ADDRESS;
// docs/reliability.md, "Connection abuse"). An IPv4 address is one key; an IPv4-mapped IPv6
// address (::ffff:a.b.c.d, how a dual-stack listener sees IPv4 peers) is its IPv4 form; an IPv6
// address counts by its first IPV6_PREFIX_LENGTH bits (/64 by default: what one subscriber or one
// site is given, so an attacker holding a whole /64 is one address, not 2^64).

/** The key of a peer address, e.g. `203.0.113.7` or `2001:db8:1:2::/64`; `unknown` when absent or unparsable. */
export function addressKey(address: unknown, v6PrefixLength = 64): string {
  if (typeof address !== 'string' || address === '') return 'unknown';
  let a = address.toLowerCase();
  if (a.startsWith('[') && a.endsWith(']')) a = a.slice(1, -1);
  const zone = a.indexOf('%');
  if (zone >= 0) a = a.slice(0, zone); // fe80::1%eth0: the zone names the local interface, not the peer
  if (!a.includes(':')) return a; // IPv4 (or a name: counted as itself)
  const groups = parseV6(a);
  if (!groups) return a;
  // IPv4-mapped (::ffff:a.b.c.d): the peer is an IPv4 address.
  if (groups[0] === 0 && groups[1] === 0 && groups[2] === 0 && groups[3] === 0 && groups[4] === 0 && groups[5] === 0xffff) {
    return `${groups[6] >> 8}.${groups[6] & 255}.${groups[7] >> 8}.${groups[7] & 255}`;
  }
  const bits = Math.max(0, Math.min(128, Math.floor(v6PrefixLength)));
  for (let i = 0; i < 8; i++) {
    const keep = Math.max(0, Math.min(16, bits - i * 16));
    groups[i] &= keep === 0 ? 0 : (0xffff << (16 - keep)) & 0xffff;
  }
  return `${compressV6(groups)}/${bits}`;
}

/** Eight 16-bit groups of an IPv6 text address (`::` and a trailing dotted quad allowed), or null. */
function parseV6(text: string): number[] | null {
  let tail: number[] = [];
  let body = text;
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.', lastColon)) { // ...:a.b.c.d
    const quad = text.slice(lastColon + 1).split('.').map(Number);
    if (quad.length !== 4 || quad.some((n) => !Number.isInteger(n) || n < 0 || n > 255)) return null;
    tail = [(quad[0] << 8) | quad[1], (quad[2] << 8) | quad[3]];
    body = text[lastColon - 1] === ':' ? text.slice(0, lastColon + 1) : text.slice(0, lastColon); // keep a `::` before the quad
  }
  const halves = body.split('::');
  if (halves.length > 2) return null;
  const part = (s: string): number[] | null => {
    if (s === '') return [];
    const out: number[] = [];
    for (const g of s.split(':')) {
      if (!/^[0-9a-f]{1,4}$/.test(g)) return null;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = part(halves[0]);
  const rest = halves.length === 2 ? part(halves[1]) : [];
  if (!head || !rest) return null;
  const given = head.length + rest.length + tail.length;
  if (halves.length === 1 ? given !== 8 : given > 7) return null;
  return [...head, ...Array<number>(8 - given).fill(0), ...rest, ...tail];
}

/** RFC 5952 text: the longest run of two or more zero groups as `::`. */
function compressV6(groups: number[]): string {
  let bestAt = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) { i++; continue; }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) { bestAt = i; bestLen = j - i; }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestAt < 0) return hex.join(':');
  return `${hex.slice(0, bestAt).join(':')}::${hex.slice(bestAt + bestLen).join(':')}`;
}
