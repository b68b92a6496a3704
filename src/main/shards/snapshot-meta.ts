// What the main thread reads of a shard's snapshot text (`{"slot":<SlotMeta>,"match":…}`,
// workers/shard/snapshots.ts): the shard's bookkeeping part only, never the engine's state.
export interface SnapshotMeta {
  /** When the match instance was created (its events' matchKey), if the snapshot says. */
  recordStart?: number;
  /** The last input the snapshot holds (matches/input-log.ts); 0 for snapshots from before the input log. */
  inputs: number;
  /** Per node that forwarded payloads to the match, the send number of the last one the snapshot holds (matches/owner-inbox.ts Via). */
  forwarded: Record<string, number>;
}

/** The bookkeeping part of a snapshot's text; undefined when it is not a shard snapshot. */
export function snapshotMeta(text: string): SnapshotMeta | undefined {
  const cut = text.indexOf(',"match":');
  if (!text.startsWith('{"slot":') || cut < 0) return undefined;
  try {
    const meta = JSON.parse(text.slice(8, cut)) as { recordStart?: unknown; inputs?: unknown; forwarded?: unknown };
    const forwarded = Object.create(null) as Record<string, number>;
    if (meta.forwarded && typeof meta.forwarded === 'object') {
      for (const [node, seq] of Object.entries(meta.forwarded)) if (typeof seq === 'number') forwarded[node] = seq;
    }
    return {
      ...(typeof meta.recordStart === 'number' ? { recordStart: meta.recordStart } : {}),
      inputs: typeof meta.inputs === 'number' ? meta.inputs : 0,
      forwarded,
    };
  } catch {
    return undefined;
  }
}
