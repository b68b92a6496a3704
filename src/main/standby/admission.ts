// Who may be a match's standby observer (docs/reliability.md, "A standby observer"): an operator
// arms a window for a live match (STANDBY_ARM_WINDOW_MS); within it ONE more observer logon with
// an access key of the match's own organisation (the same key id) is admitted, and its ack carries
// a standby secret of its own (generated like a group secret, kept only as its digest). The real
// client remembers it and presents it again as `groupSecret`: that resumes the standby seat. Without
// an armed window nothing changes: a logon without the match's secret is refused as before.
import type { Config } from '../base/config.js';
import type { Logger } from '../base/log.js';
import type { MatchDirectory, DirectoryRecord } from '../matches/index.js';
import type { StandbyStore } from './standby-store.js';
import { generateSecret, secretDigest, secretMatches } from '../sessions/index.js';
import type { StandbyRelay } from './relay.js';

export interface StandbyAdmissionDeps {
  config: Config;
  log: Logger;
  store: StandbyStore;
  directory: MatchDirectory;
  relay: StandbyRelay;
}

export class StandbyAdmission {
  constructor(private readonly deps: StandbyAdmissionDeps) {}

  /** Opens the window of a live match; undefined when the match is unknown. */
  async arm(groupCode: string, now = Date.now()): Promise<{ armedUntil: number } | undefined> {
    if (!this.deps.directory.get(groupCode)) return undefined;
    const armedUntil = now + this.deps.config.STANDBY_ARM_WINDOW_MS;
    await this.deps.store.arm(groupCode, armedUntil);
    await this.deps.relay.watch(groupCode, armedUntil);
    return { armedUntil };
  }

  /** A new match took the code: a standby record an earlier match of the code left behind is forgotten. */
  fresh(groupCode: string): void {
    this.deps.relay.forget(groupCode);
    this.deps.store.delete(groupCode).catch((err: Error) => this.deps.log.warn({ groupCode, error: err.message }, 'standby record not cleared'));
  }

  /**
   * A logon for a live match that did not present the group secret: the standby seat when it
   * presents the standby secret ('reconnected'), or when it is admitted through an open window (the
   * new standby secret, given once); null: refused as the interface specification says.
   */
  async logon(match: DirectoryRecord, presented: unknown, keyId: string, now = Date.now()): Promise<{ reason: string } | null> {
    const { store, config } = this.deps;
    const record = await store.get(match.groupCode);
    if (!record) return null;
    if (record.secretDigest && secretMatches(record.secretDigest, presented)) return { reason: 'reconnected' };
    if (record.armedUntil <= now || keyId !== match.keyId) return null;
    const secret = generateSecret(config.GROUP_SECRET_LENGTH);
    if (!(await store.admit(match.groupCode, secretDigest(secret), now))) return null;
    await this.deps.relay.watch(match.groupCode);
    return { reason: secret };
  }
}
