// Which shard runs a match: hash(groupCode) % N.

/** FNV-1a: cheap, stable across processes and restarts. */
export function shardIndexOf(groupCode: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < groupCode.length; i++) {
    h ^= groupCode.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % shards;
}
