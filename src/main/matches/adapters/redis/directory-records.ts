// A directory record as Redis stores it and the directory channel carries it, and its conversions
// to and from the view's entries (match-directory.ts, directory-sync.ts, match-ownership.ts).
//
// The record (`match:<code>`) is JSON with the mutable fields first and the claim's fixed fields
// last under "base", so a script can change a field without re-encoding the teams (lua/directory.ts).
import type { DirectoryEntry } from '../../directory-view.js';
import type { DirectoryRecord } from '../../match-directory.js';

export interface Stored {
  epoch: number;
  owner: string;
  matchId: string;
  secretDigest: string;
  playerIds: string[];
  base: { groupCode: string; organizationId: string; isSupporter: boolean; keyId: string; createdAt: number; teams: DirectoryRecord['teams'] };
}

/** A message on the directory channel: a record set, removed (code and epoch), or a load's marker. */
export type Message =
  | { t: 'set'; w: string; s: number; r: Stored }
  | { t: 'del'; w: string; s: number; c: string; e: number }
  | { t: 'mark'; id: string };

const NO_PLAYERS: ReadonlySet<string> = new Set();

export function storedJson(s: Stored): string {
  return `{"epoch":${s.epoch},"owner":${JSON.stringify(s.owner)},"matchId":${JSON.stringify(s.matchId)},"secretDigest":${JSON.stringify(s.secretDigest)},"playerIds":${JSON.stringify(s.playerIds)},"base":${JSON.stringify(s.base)}}`;
}

export function toEntry(s: Stored): DirectoryEntry {
  return {
    groupCode: s.base.groupCode, secretDigest: s.secretDigest, matchId: s.matchId, organizationId: s.base.organizationId,
    isSupporter: s.base.isSupporter, keyId: s.base.keyId, createdAt: s.base.createdAt, teams: s.base.teams,
    playerIds: s.playerIds.length > 0 ? new Set(s.playerIds) : NO_PLAYERS, epoch: s.epoch,
  };
}

export function toStored(r: Omit<DirectoryRecord, 'playerIds'> & { playerIds: Iterable<string> }, owner: string): Stored {
  return {
    epoch: r.epoch, owner, matchId: r.matchId, secretDigest: r.secretDigest, playerIds: [...r.playerIds],
    base: { groupCode: r.groupCode, organizationId: r.organizationId, isSupporter: r.isSupporter, keyId: r.keyId, createdAt: r.createdAt, teams: r.teams },
  };
}
