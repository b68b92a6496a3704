// Dropped messages: counted by reason (ShardStats.dropped) and logged once per match, reason and
// type. Types are the client's choice, so past MAX_LOGGED_DROPS pairs a match logs each reason once
// more at most (docs/architecture.md, "Hostile input").
import { MAX_LOGGED_DROPS, MAX_LOGGED_TYPE } from '../../protocol/limits.js';
import type { OutputBuffer } from './output-buffer.js';
import type { Slot } from './slot.js';

export class DropLog {
  /** Dropped messages by reason since the shard started. */
  readonly counts: Record<string, number> = {};

  constructor(private readonly out: OutputBuffer) {}

  /** `slot`: the live match of `groupCode` (its log budget), or undefined when there is none. */
  drop(groupCode: string, slot: Slot | undefined, reason: string, type: string, detail?: string): void {
    this.counts[reason] = (this.counts[reason] ?? 0) + 1;
    let key = reason + '\x1f' + type;
    if (slot) {
      if (slot.drops.has(key)) return;
      if (slot.drops.size >= MAX_LOGGED_DROPS) {
        key = reason;
        if (slot.drops.has(key)) return;
      }
      slot.drops.add(key);
    }
    if (type.length > MAX_LOGGED_TYPE) type = type.slice(0, MAX_LOGGED_TYPE) + '…';
    this.out.event({ t: 'drop', groupCode, reason, type, detail });
  }
}
