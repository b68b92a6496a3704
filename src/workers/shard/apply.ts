// Messages into the engine (docs/match-rules.md 3): the parse (nesting depth first), the routing checks
// that need the parsed envelope (the observer's group code, the auxiliary session's match id and
// the auxiliary trust rule, docs/architecture.md "Why the routing checks sit where they do"), the
// replay recording, then Match.apply/applyAux, which also runs the timers due by the message's time.
import { jsonDepthExceeds } from '../../protocol/json-depth.js';
import { auxSessionRefusal } from '../match/match.js';
import type { ApplyContext } from './context.js';
import { messageEvents, timeReached } from './match-events.js';
import type { Slot } from './slot.js';

type Envelope = Record<string, unknown>;

/** An observer payload (obs_data) of the session of `groupCode`; `input`: its number in the match (the input log's, 0: none); `via`: who forwarded it ('' : nobody). */
export function applyObs(shard: ApplyContext, groupCode: string, raw: string, receivedAt: number, input: number, via: string): void {
  const slot = shard.slots.get(groupCode);
  if (slot !== undefined && replayed(shard, slot)) return;
  if (slot !== undefined) given(slot, input, via); // held by the match's next snapshot, whatever the payload does
  const env = parse(shard, raw, groupCode, slot);
  if (!env) return;
  const type = typeof env.type === 'string' ? env.type : '?';
  // Recorded auxiliary records (replays, docs/client-contract.md 3.1) carry a match id, not a group code: they go
  // to the session's own match, whatever match id, group code or player they name. The observer
  // owns that match (it holds the group secret) and may set any of its state anyway.
  if (env.groupCode !== groupCode && !type.startsWith('aux_')) return shard.drops.drop(groupCode, slot, 'group_mismatch', type);
  if (!slot) return shard.drops.drop(groupCode, undefined, 'no_match', type);
  applyTo(shard, slot, env, type, receivedAt);
}

/**
 * A live match the main thread sent auxiliary data of `matchId` to, if it still has that match id
 * (the main thread learns match ids from this shard, a batch later).
 */
export function auxTarget(shard: ApplyContext, groupCode: string, matchId: string): Slot | undefined {
  const slot = liveSlot(shard, groupCode);
  return slot !== undefined && slot.reported.matchId === matchId ? slot : undefined;
}

/**
 * The live match of `groupCode`, unless the batch being run is one replayed after a crash that the
 * match's restored snapshot already holds (snapshots.ts: a round's slices are taken at later marks).
 */
export function liveSlot(shard: ApplyContext, groupCode: string): Slot | undefined {
  const slot = shard.slots.get(groupCode);
  return slot !== undefined && !replayed(shard, slot) ? slot : undefined;
}

const replayed = (shard: ApplyContext, slot: Slot): boolean => slot.snapshot.replayMark >= shard.batchMark;

/** The match was given input `input` (0: not numbered), forwarded by `via` (`<node>:<send number>`, '' : not forwarded): its snapshot says so. */
function given(slot: Slot, input: number, via: string): void {
  if (input > 0) slot.inputs.n = input;
  if (via === '') return;
  const cut = via.lastIndexOf(':');
  const seq = Number(via.slice(cut + 1));
  const node = via.slice(0, cut);
  if (cut > 0 && Number.isSafeInteger(seq) && (slot.inputs.forwarded[node] ?? 0) < seq) slot.inputs.forwarded[node] = seq;
}

/**
 * An auxiliary payload (aux_data) of a session with `matchId` and `playerId`, for the matches of
 * `groupCodes` (those with that match id on this shard, resolved by the main thread).
 */
export function applyAux(shard: ApplyContext, groupCodes: string[], inputs: number[], via: string, matchId: string, playerId: string, raw: string, receivedAt: number): void {
  for (let i = 0; i < groupCodes.length; i++) {
    const slot = liveSlot(shard, groupCodes[i]);
    if (slot !== undefined) given(slot, inputs[i], via);
  }
  let first: Slot | undefined;
  for (const code of groupCodes) if ((first = auxTarget(shard, code, matchId))) break;
  const firstCode = first?.groupCode ?? '';
  const env = parse(shard, raw, firstCode, first);
  if (!env || !first) return;
  const type = typeof env.type === 'string' ? env.type : '?';
  // The auxiliary trust rule, once per message and before anything is recorded; the engine's
  // applyAux() applies the same rule again for each match.
  const refusal = auxSessionRefusal(env.type, env.playerId, playerId, env.data);
  if (refusal) return shard.drops.drop(firstCode, first, refusal, type);
  if (env.matchId !== matchId) return shard.drops.drop(firstCode, first, 'match_mismatch', type);
  for (const code of groupCodes) {
    const slot = auxTarget(shard, code, matchId);
    if (slot) applyTo(shard, slot, env, type, receivedAt, playerId);
  }
}

/** The envelope of a raw payload, or null (dropped: too_deep, invalid_json, invalid_envelope). */
function parse(shard: ApplyContext, raw: string, groupCode: string, slot: Slot | undefined): Envelope | null {
  if (jsonDepthExceeds(raw)) {
    shard.drops.drop(groupCode, slot, 'too_deep', '?');
    return null;
  }
  try {
    const value: unknown = JSON.parse(raw);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Envelope;
    shard.drops.drop(groupCode, slot, 'invalid_envelope', '?');
  } catch {
    shard.drops.drop(groupCode, slot, 'invalid_json', '?');
  }
  return null;
}

/** `auxPlayerId`: the auxiliary session's player (aux_data), undefined for the observer's obs_data. */
function applyTo(shard: ApplyContext, slot: Slot, env: Envelope, type: string, receivedAt: number, auxPlayerId?: string): void {
  if (slot.match.ended) return shard.drops.drop(slot.groupCode, slot, 'match_ended', type);
  const ts = shard.clock.messageTime(receivedAt, env);
  slot.received.at = receivedAt;
  if (!shard.out.muted) slot.recorder?.record(env, ts);
  timeReached(slot, ts);
  const result = auxPlayerId === undefined ? slot.match.apply(env, ts) : slot.match.applyAux(env, auxPlayerId, ts);
  if (!result.ok) {
    shard.drops.drop(slot.groupCode, slot, result.reason, type, result.detail);
  } else {
    shard.stats.accepted(type);
    messageEvents(slot, type, env.data, ts);
    if (type === 'roster') shard.changes.rosterChanged(slot);
  }
  const changes = shard.changes;
  if (slot.match.matchId !== slot.reported.matchId) changes.matchIdChanged(slot);
  changes.forwardEffects(slot);
  changes.touched(slot);
}
