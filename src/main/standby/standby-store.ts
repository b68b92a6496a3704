// StandbyStore: each match's standby observer as every process must see it (docs/reliability.md,
// "A standby observer"). An operator arms a window; within it ONE more observer logon of the
// match's organisation is admitted as the standby, with a secret of its own (kept here only as its
// digest, like the group secret). Which of the two observer seats is the primary (whose data is
// applied) is kept here too, so that it survives a restart (STATE_DIR) and an owner change (Redis).
//
// A seat is the credential an observer session logged on with: 'group' (the group secret, or the
// logon that created the match) or 'standby' (the standby secret). The session carries its seat
// (`SessionRecord.seat`, sessions/session-store.ts), so a resumed session keeps it; the roles swap at a failover
// by changing `primary`, not the sessions.
// Adapters: standby/adapters/memory/standby-store.ts, standby/adapters/state-dir/standby-store.ts, standby/adapters/redis/standby-store.ts.
import type { Awaitable } from '../base/awaitable.js';
import type { Seat } from '../sessions/index.js';

export type { Seat };

export interface StandbyRecord {
  /** Until when (epoch ms) an armed window admits one standby logon; 0 when not armed. */
  readonly armedUntil: number;
  /** sha-256 of the standby's secret, hex; '' before a standby was admitted. */
  readonly secretDigest: string;
  /** The seat whose data is applied. */
  readonly primary: Seat;
}

export const NO_STANDBY: StandbyRecord = { armedUntil: 0, secretDigest: '', primary: 'group' };

export interface StandbyStore {
  /** Opens (or renews) the window of `groupCode` until `until`. */
  arm(groupCode: string, until: number): Promise<void>;
  /**
   * A logon asks to be the standby: when the window is open at `now`, the standby's digest is kept
   * and the window closes (true); otherwise nothing changes (false). Atomic: of two, exactly one.
   */
  admit(groupCode: string, secretDigest: string, now: number): Promise<boolean>;
  get(groupCode: string): Awaitable<StandbyRecord | undefined>;
  setPrimary(groupCode: string, seat: Seat): Promise<void>;
  /** The match is gone. */
  delete(groupCode: string): Promise<void>;
  close(): void;
}
