// Backend calls during a match (docs/interface.md 4.8): registration, updates, completion, the
// statistics backend (supporter organisations) and the player-camera service. Effects come from
// the shards; calls run here, off the shards, each with a timeout; a failure or non-200 is logged
// and never stops the match. URLs that carry a secret are never logged. What the shard needs
// back (registration done, player cameras, MMR) goes out as events (base/events.ts).
import type { BackendEffect } from '../../protocol/shard-messages.js';
import type { Config } from '../base/config.js';
import type { MainEventBus } from '../base/events.js';
import type { Logger } from '../base/log.js';
import { isRehearsal } from './rehearsal-marker.js';
import type { MatchDirectory } from './match-directory.js';
import { pathSegment, type JsonResponse, type Outbound } from '../backend/index.js';

export interface MatchSyncDeps {
  config: Config;
  log: Logger;
  /** Whose organisation is a supporter (the statistics backend is for them only). */
  directory: Pick<MatchDirectory, 'get'>;
  events: MainEventBus;
  request: Outbound;
}

/** The metrics label of a call: match_register/update/complete, or stats_<path>. */
const callLabel = (what: string): string => (what === 'register' || what === 'update' || what === 'complete' ? `match_${what}` : `stats_${what}`);

export class MatchSync {
  private readonly log: Logger;
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Calls in flight (shutdown waits for them, bounded). */
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Each live match's registration call by group code: resolves true once answered (registered). */
  private readonly registering = new Map<string, Promise<boolean>>();

  constructor(private readonly deps: MatchSyncDeps) {
    this.log = deps.log.child({ module: 'match-sync' });
  }

  run(effect: BackendEffect): void {
    const c = this.deps.config;
    if (!c.USE_BACKEND) return;
    // A rehearsal is never registered, completed, sent to the statistics backend or given player
    // cameras (README, "Rehearsals"): no outbound call at all for it.
    if (isRehearsal(this.deps.directory.get(effect.groupCode))) return;
    switch (effect.kind) {
      case 'register':
      case 'update':
      case 'complete': {
        const method = effect.kind === 'register' ? 'POST' : 'PUT';
        const matchId = pathSegment(effect.matchId);
        if (!matchId) return;
        if (effect.kind === 'complete' && effect.ifRegistering) {
          // The match ended before its registration was answered: complete it once it is (never otherwise).
          const pending = this.registering.get(effect.groupCode);
          if (!pending) return;
          const later = pending.then((registered) => { if (registered) this.run({ ...effect, ifRegistering: undefined }); });
          this.inFlight.add(later);
          void later.finally(() => this.inFlight.delete(later));
          return;
        }
        const url = `${c.BACKEND_URL}/system/match/${matchId}/${effect.kind}`;
        const answered = this.call(effect.kind, effect.groupCode, url, method, { 'X-User-Token': c.BACKEND_TOKEN }, effect.body).then((res) => {
          // docs/match-rules.md 4.5: registered once the call completed, whatever its status.
          if (effect.kind === 'register') this.deps.events.emit('matchRegistered', { groupCode: effect.groupCode, registered: res !== null });
          return res !== null;
        });
        // Kept until the match is removed (forget): the shard may end it before it hears the answer.
        if (effect.kind === 'register') this.registering.set(effect.groupCode, answered);
        return;
      }
      case 'stats_add':
      case 'stats_region':
      case 'stats_fetch':
      case 'mmr_fetch': {
        // The statistics backend is for supporter organisations only (docs/interface.md 4.8).
        if (!c.STATS_BACKEND_URL || !(this.deps.directory.get(effect.groupCode)?.isSupporter ?? false)) return;
        const headers = { Authentication: c.STATS_BACKEND_TOKEN };
        const stats = (path: string, body: unknown) => this.call(path, effect.groupCode, `${c.STATS_BACKEND_URL}/${path}`, 'POST', headers, body);
        if (effect.kind === 'stats_add') void stats('addMatch', { code: effect.groupCode, matchUuid: effect.matchId });
        else if (effect.kind === 'stats_region') void stats('updateMatchRegion', { matchUuid: effect.matchId, accountPuuid: effect.playerId });
        else if (effect.kind === 'stats_fetch') this.later(effect.delayMs, () => void stats('fetchMatchStats', { matchUuid: effect.matchId }));
        else {
          void stats('fetchPlayerMMR', { matchUuid: effect.matchId, accountPuuids: effect.playerIds }).then((res) => {
            if (res?.status === 200 && res.body !== undefined) this.deps.events.emit('mmr', { groupCode: effect.groupCode, result: res.body });
          });
        }
        return;
      }
      case 'playercam_fetch': {
        const identifier = pathSegment(effect.identifier);
        const secret = pathSegment(effect.secret);
        if (!c.PLAYERCAM_URL || !identifier || !secret) return;
        const url = `${c.PLAYERCAM_URL}/api/getNameOverridesAndPlayercams/${identifier}/${secret}`;
        void this.deps.request(url, { method: 'GET', timeoutMs: c.OUTBOUND_TIMEOUT_MS, label: 'playercam' }).then(
          (res) => {
            const body = res.body as { nameOverrides?: unknown; enabledPlayers?: unknown } | undefined;
            if (res.status === 200 && body && body.nameOverrides !== undefined && body.enabledPlayers !== undefined) this.deps.events.emit('playercams', { groupCode: effect.groupCode, result: body });
            else this.log.warn({ groupCode: effect.groupCode, status: res.status }, 'player-camera answer invalid; ignored');
          },
          (err: Error) => this.log.warn({ groupCode: effect.groupCode, error: err.message }, 'player-camera fetch failed'),
        );
        return;
      }
    }
  }

  /** The match is gone (its removal event follows its last effects): its registration is no longer needed. */
  forget(groupCode: string): void {
    this.registering.delete(groupCode);
  }

  /** One call; resolves with the answer (any status, non-200 logged) or null when there was none. */
  private call(what: string, groupCode: string, url: string, method: string, headers: Record<string, string>, body: unknown): Promise<JsonResponse | null> {
    const p = this.callOnce(what, groupCode, url, method, headers, body);
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
    return p;
  }

  /** Resolves when every call in flight has an answer (or failed), or after `timeoutMs`. */
  async drain(timeoutMs: number): Promise<void> {
    if (this.inFlight.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight]),
      new Promise<void>((resolve) => { timer = setTimeout(resolve, timeoutMs); }),
    ]);
    clearTimeout(timer);
  }

  private async callOnce(what: string, groupCode: string, url: string, method: string, headers: Record<string, string>, body: unknown): Promise<JsonResponse | null> {
    try {
      const res = await this.deps.request(url, { method, headers, body, timeoutMs: this.deps.config.OUTBOUND_TIMEOUT_MS, label: callLabel(what) });
      if (res.status !== 200) this.log.warn({ groupCode, call: what, status: res.status }, 'backend call answered non-200');
      else this.log.debug({ groupCode, call: what }, 'backend call done');
      return res;
    } catch (err) {
      this.log.warn({ groupCode, call: what, error: (err as Error).message }, 'backend call failed');
      return null;
    }
  }

  private later(ms: number, fn: () => void): void {
    const timer = setTimeout(() => { this.timers.delete(timer); fn(); }, ms);
    timer.unref();
    this.timers.add(timer);
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}
