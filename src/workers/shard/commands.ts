// The main thread's commands (protocol/shard-messages.ts), one at a time in batch order: batches
// of payloads unpacked and applied, the rest routed to the match or the shard they concern.
import { FIELD_SEP, RECORD_SEP, type ObsBatchCmd, type ShardCmd } from '../../protocol/shard-messages.js';
import { applyAux, applyObs, auxTarget, liveSlot } from './apply.js';
import type { CommandContext } from './context.js';

/**
 * `test_crash` (FAULT_INJECTION, tests only): the shard fails as a bug would, past the batch loop's
 * per-command guard (thread.ts runBatch rethrows it): a thread ends, an inline shard is replaced.
 */
export class InjectedFault extends Error {
  constructor() {
    super('injected shard fault (FAULT_INJECTION)');
  }
}

export function runCommand(shard: CommandContext, cmd: ShardCmd, now: number): void {
  switch (cmd.t) {
    case 'create': {
      const existing = shard.slots.get(cmd.groupCode);
      if (existing !== undefined && liveSlot(shard, cmd.groupCode) === undefined) return; // replayed: the snapshot holds it
      return shard.create(cmd.groupCode, cmd.logon, cmd.now, cmd.again === true, cmd.frameNoBase ?? 0);
    }
    case 'obs': return unpackObs(shard, cmd);
    case 'aux': {
      for (let i = 0; i < cmd.raws.length; i++) applyAux(shard, cmd.groupCodes[i], cmd.inputs[i], cmd.vias[i], cmd.matchIds[i], cmd.playerIds[i], cmd.raws[i], cmd.nows[i]);
      return;
    }
    case 'aux_disconnected': {
      for (const code of cmd.groupCodes) {
        const slot = auxTarget(shard, code, cmd.matchId);
        if (!slot) continue;
        slot.match.auxDisconnected(cmd.playerId, shard.clock.tickTime(cmd.now) ?? cmd.now);
        shard.changes.touched(slot);
      }
      return;
    }
    case 'registered': {
      const slot = liveSlot(shard, cmd.groupCode);
      if (slot) { slot.match.setRegistered(cmd.registered); shard.changes.touched(slot); }
      return;
    }
    case 'playercams': {
      const slot = liveSlot(shard, cmd.groupCode);
      if (slot) { slot.match.applyPlayercams(cmd.result, shard.clock.tickTime(cmd.now) ?? cmd.now); shard.changes.touched(slot); }
      return;
    }
    case 'mmr': {
      const slot = liveSlot(shard, cmd.groupCode);
      if (slot) { slot.match.applyMmr(cmd.result, shard.clock.tickTime(cmd.now) ?? cmd.now); shard.changes.touched(slot); }
      return;
    }
    case 'schedule': {
      const slot = liveSlot(shard, cmd.groupCode);
      if (slot) { slot.match.applySchedule(cmd.teams, cmd.tools, shard.clock.tickTime(cmd.now) ?? cmd.now); shard.changes.touched(slot); }
      return;
    }
    case 'remove': {
      const slot = liveSlot(shard, cmd.groupCode);
      if (slot) shard.endMatch(slot, now, 'admin'); // operator force-end
      return;
    }
    case 'frame_texts': {
      const slot = liveSlot(shard, cmd.groupCode);
      if (slot && !shard.out.muted) shard.sendFrameTexts(slot, cmd.answer);
      return;
    }
    case 'feed_tables': {
      const slot = liveSlot(shard, cmd.groupCode);
      if (slot && !shard.out.muted) shard.sendFeedTables(slot);
      return;
    }
    case 'evict': {
      const slot = liveSlot(shard, cmd.groupCode);
      if (slot) shard.evict(slot);
      return;
    }
    case 'restore': return shard.restore(cmd);
    case 'mark':
      shard.out.mark = cmd.mark;
      return;
    case 'mute': return shard.setMuted(cmd.on);
    case 'drain': return shard.drain(cmd.endMatches, now);
    case 'summaries': return shard.watchSummaries(cmd.on, now);
    case 'test_crash': {
      if (shard.settings.faultInjection) throw new InjectedFault();
      return;
    }
    case 'exit': return shard.exit();
  }
}

/** The packed observer records (`groupCode FIELD_SEP receiveTime FIELD_SEP input FIELD_SEP via FIELD_SEP raw`, RECORD_SEP between), in order. */
function unpackObs(shard: CommandContext, cmd: ObsBatchCmd): void {
  const packed = cmd.packed;
  let start = 0;
  for (let k = 0; k < cmd.count; k++) {
    let end = packed.indexOf(RECORD_SEP, start);
    if (end < 0) end = packed.length;
    const a = packed.indexOf(FIELD_SEP, start);
    const b = packed.indexOf(FIELD_SEP, a + 1);
    const c = packed.indexOf(FIELD_SEP, b + 1);
    const d = packed.indexOf(FIELD_SEP, c + 1);
    applyObs(shard, packed.slice(start, a), packed.slice(d + 1, end), Number(packed.slice(a + 1, b)), Number(packed.slice(b + 1, c)), d > c + 1 ? packed.slice(c + 1, d) : '');
    start = end + 1;
  }
}
