// Every Lua script of the service, in one registry: its name, its number of keys, its text
// (lua/<concern>.ts) and the signature the adapters call it with. connection.ts defines them all on
// the command connection (ioredis's defineCommand: EVALSHA, re-loaded by itself after NOSCRIPT, as
// after a restarted Redis), so an adapter only calls `conn.cmd.<name>(keys…, args…)`.
import * as directory from './lua/directory.js';
import * as eventOutbox from './lua/event-outbox.js';
import * as fixtures from './lua/fixtures.js';
import * as inputLog from './lua/input-log.js';
import * as outputDelays from './lua/output-delays.js';
import * as outputLeases from './lua/output-leases.js';
import * as previews from './lua/previews.js';
import * as records from './lua/records.js';
import * as sessions from './lua/sessions.js';
import * as snapshots from './lua/snapshots.js';
import * as standby from './lua/standby.js';
import * as teamInfo from './lua/team-info.js';
import * as webhookEndpoints from './lua/webhook-endpoints.js';

type Arg = string | number;
type Flag = '0' | '1';

/** What the scripts answer, by name (the keys first, then the arguments: see each script's comment). */
export interface ScriptCommands {
  // MatchDirectory and MatchOwnership (match-directory.ts, match-ownership.ts).
  odsDirClaim(...args: Arg[]): Promise<[string, string?]>;
  odsDirRelease(...args: Arg[]): Promise<number>;
  odsDirUpdate(...args: Arg[]): Promise<number>;
  odsDirRenew(...args: Arg[]): Promise<number[]>;
  odsDirAdopt(...args: Arg[]): Promise<string | null>;
  odsDirOrphans(...args: Arg[]): Promise<string[]>;
  odsDirLoad(...args: Arg[]): Promise<string[]>;
  odsDirRelinquish(lease: string, holder: string): Promise<number>;
  // MatchOwnership of a match instance's outputs (match-ownership.ts, lua/output-leases.ts).
  odsOutputsHold(outputs: string, node: string, ttlMs: number, leasePrefix: string, fencePrefix: string, fenceTtlMs: number, ...pairs: Arg[]): Promise<number[]>;
  odsOutputsAdopt(outputs: string, epochCounter: string, node: string, ttlMs: number, leasePrefix: string, fencePrefix: string, fenceTtlMs: number,
    groupLeasePrefix: string, groupRecordPrefix: string, streamPrefix: string, matchKey: string): Promise<number | null>;
  odsOutputsOrphans(outputs: string, leasePrefix: string): Promise<string[]>;
  odsOutputsSettle(lease: string, outputs: string, holder: string, matchKey: string): Promise<number>;
  // SessionStore.
  odsSessionPut(key: string, index: string, holder: string, id: string, json: string, ttl: number, claim: Flag): Promise<number>;
  odsSessionTakeOver(oldKey: string, newKey: string, index: string, holder: string, oldId: string, read: string,
    newId: string, json: string, ttl: number, aux: Flag, tombstone: string): Promise<number>;
  odsSessionUpdate(key: string, index: string, holder: string, id: string, expected: string, json: string, ttl: number,
    renew: Flag, release: Flag, aux: Flag): Promise<number>;
  /** The number of keys is its first argument. */
  odsSessionEnd(...args: Arg[]): Promise<string[]>;
  // PreviewStore.
  odsPreviewStore(key: string, index: string, sizes: string, total: string, code: string, json: string, size: number,
    ttlMs: number, maxEntries: number, maxBytes: number, onlyIfAbsent: Flag): Promise<string>;
  odsPreviewSize(unused: string, index: string, sizes: string, total: string): Promise<number>;
  // SnapshotStore.
  odsSnapshotPut(key: string, epoch: number, data: string | Buffer, base?: Buffer): Promise<number>;
  odsSnapshotDelete(key: string, epoch: number): Promise<number>;
  // TeamInfoStore.
  odsTeamWrite(key: string, index: string, code: string, ttlMs: number, teams: string, final: string, update: Flag): Promise<number>;
  odsTeamSize(index: string, index2: string): Promise<number>;
  // StandbyStore (standby-store.ts).
  odsStandbySet(key: string, field: 'armedUntil' | 'primary', value: string, ttlS: number): Promise<number>;
  odsStandbyAdmit(key: string, digest: string, now: number, ttlS: number): Promise<number>;
  odsStandbyDelete(key: string): Promise<number>;
  // FixtureStore (fixture-store.ts).
  odsFixtureAdd(key: string, revision: string, max: number, ...pairs: string[]): Promise<string>;
  odsFixtureSwap(key: string, revision: string, code: string, read: string, next: string): Promise<number>;
  odsFixtureAll(key: string): Promise<string[]>;
  // OutputDelayStore (output-delay-store.ts).
  odsDelaySet(key: string, revision: string, code: string, seconds: string, max: number): Promise<number>;
  // WebhookEndpointStore (webhook-endpoint-store.ts).
  odsEndpointAdd(key: string, revision: string, id: string, json: string, max: number): Promise<'ok' | 'exists' | 'full'>;
  odsEndpointRemove(key: string, revision: string, id: string): Promise<number>;
  // EventOutbox (event-outbox.ts).
  odsEventAppend(stream: string, fence: string, lease: string, seq: number, order: number, organizationId: string, text: string, ttlMs: number, epoch: number, live: string): Promise<number>;
  odsEventAdvance(cursors: string, fence: string, lease: string, endpointId: string, seq: number, ttlMs: number, epoch: number, live: string): Promise<number>;
  // RecordStore and DeadLetterStore (record-store.ts).
  odsRecordPut(record: string, index: string, fence: string, lease: string, matchKey: string, storedAt: number, summary: string, body: string | Buffer, groupCode: string, ttlMs: number, cutoff: number, epoch: number | '', fenceTtlMs: number): Promise<number>;
  odsRecordList(index: string, recordPrefix: string, cutoff: number, groupCode: string, limit: number): Promise<string[]>;
  odsRecordPrune(index: string, recordPrefix: string, cutoff: number): Promise<number>;
  odsDeadLetterAdd(list: string, json: string, max: number, ttlMs: number): Promise<number>;
  odsDeadLetterList(list: string): Promise<string[]>;
  odsDeadLetterRemove(key: string, endpointId: string, eventId: string): Promise<number>;
  // InputLog (input-log.ts).
  /** The number of keys first, then the keys, ttlMs and each input's arguments (arrays are flattened by ioredis). */
  odsInputAppend(numberOfKeys: number, keys: string[], ttlMs: number, inputs: Arg[]): Promise<(number | string)[]>;
  odsInputSince(key: string, fence: string, start: string, after: number, ttlMs: number): Promise<[string, string[]][]>;
  odsInputCover(key: string, epoch: number, minId: string, ttlMs: number): Promise<number>;
  odsInputDrop(key: string, epoch: number): Promise<number>;
}

/** `numberOfKeys` absent: the caller gives it first (a variable number of keys). */
export interface ScriptDefinition { numberOfKeys?: number; lua: string }

export const LUA_SCRIPTS: Record<keyof ScriptCommands, ScriptDefinition> = {
  odsDirClaim: { numberOfKeys: 5, lua: directory.CLAIM },
  odsDirRelease: { numberOfKeys: 5, lua: directory.RELEASE },
  odsDirUpdate: { numberOfKeys: 1, lua: directory.UPDATE },
  odsDirRenew: { numberOfKeys: 0, lua: directory.RENEW },
  odsDirAdopt: { numberOfKeys: 4, lua: directory.ADOPT },
  odsDirOrphans: { numberOfKeys: 1, lua: directory.ORPHANS },
  odsDirLoad: { numberOfKeys: 1, lua: directory.LOAD },
  odsDirRelinquish: { numberOfKeys: 1, lua: directory.RELINQUISH },
  odsOutputsHold: { numberOfKeys: 1, lua: outputLeases.HOLD },
  odsOutputsAdopt: { numberOfKeys: 2, lua: outputLeases.ADOPT },
  odsOutputsOrphans: { numberOfKeys: 1, lua: outputLeases.ORPHANS },
  odsOutputsSettle: { numberOfKeys: 2, lua: outputLeases.SETTLE },
  odsSessionPut: { numberOfKeys: 3, lua: sessions.PUT },
  odsSessionTakeOver: { numberOfKeys: 4, lua: sessions.TAKE_OVER },
  odsSessionUpdate: { numberOfKeys: 3, lua: sessions.UPDATE },
  odsSessionEnd: { lua: sessions.END },
  odsPreviewStore: { numberOfKeys: 4, lua: previews.STORE },
  odsPreviewSize: { numberOfKeys: 4, lua: previews.SIZE },
  odsSnapshotPut: { numberOfKeys: 1, lua: snapshots.PUT },
  odsSnapshotDelete: { numberOfKeys: 1, lua: snapshots.DELETE },
  odsTeamWrite: { numberOfKeys: 2, lua: teamInfo.WRITE },
  odsTeamSize: { numberOfKeys: 2, lua: teamInfo.SIZE },
  odsStandbySet: { numberOfKeys: 1, lua: standby.SET },
  odsStandbyAdmit: { numberOfKeys: 1, lua: standby.ADMIT },
  odsStandbyDelete: { numberOfKeys: 1, lua: standby.DELETE },
  odsFixtureAdd: { numberOfKeys: 2, lua: fixtures.ADD },
  odsFixtureSwap: { numberOfKeys: 2, lua: fixtures.SWAP },
  odsFixtureAll: { numberOfKeys: 1, lua: fixtures.ALL },
  odsDelaySet: { numberOfKeys: 2, lua: outputDelays.SET },
  odsEndpointAdd: { numberOfKeys: 2, lua: webhookEndpoints.ADD },
  odsEndpointRemove: { numberOfKeys: 2, lua: webhookEndpoints.REMOVE },
  odsEventAppend: { numberOfKeys: 3, lua: eventOutbox.APPEND },
  odsEventAdvance: { numberOfKeys: 3, lua: eventOutbox.ADVANCE },
  odsRecordPut: { numberOfKeys: 4, lua: records.PUT },
  odsRecordList: { numberOfKeys: 1, lua: records.LIST },
  odsRecordPrune: { numberOfKeys: 1, lua: records.PRUNE },
  odsDeadLetterAdd: { numberOfKeys: 1, lua: records.DEAD_ADD },
  odsDeadLetterList: { numberOfKeys: 1, lua: records.DEAD_LIST },
  odsDeadLetterRemove: { numberOfKeys: 1, lua: records.DEAD_REMOVE },
  odsInputAppend: { lua: inputLog.APPEND },
  odsInputSince: { numberOfKeys: 1, lua: inputLog.SINCE },
  odsInputCover: { numberOfKeys: 1, lua: inputLog.COVER },
  odsInputDrop: { numberOfKeys: 1, lua: inputLog.DROP },
};
