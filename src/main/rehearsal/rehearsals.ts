// Rehearsals (README, "Rehearsals"): an operator plays a recording into a group code, so that the
// overlays on it run through a whole match with the real teams and tool settings before match day.
// A rehearsal is a match like a logon's (claimed in the directory, counted against the caps, run by
// a shard, removed by the one removal path), marked by its key id (matches/rehearsal-marker.ts), fed
// by the playback engine (src/playback) instead of an observer: each record goes into the match's
// path on this node exactly as an observer's obs_data would (routing.obs), so the overlays get
// what a live match sends them. It runs on the node that claimed the code; another node's requests
// reach it over the ControlBus (remote.ts). It ends by the match's removal, whatever the cause: its
// recording's game_end, stop, force-end, a real observer's logon (lifecycle.open), inactivity,
// REHEARSAL_MAX_MS. A backward seek or a loop ends the match and claims the code again (the same
// path as two live matches in a row on one code: a clean start, a new epoch, every overlay re-keyed).
import { Playback } from '../../playback/playback.js';
import type { ObsLogonPacket } from '../../schemas/logon.js';
import type { Config } from '../base/config.js';
import type { MainEventBus } from '../base/events.js';
import type { Logger } from '../base/log.js';
import type { MatchLifecycle, MatchRouting } from '../matches/index.js';
import type { ControlBus, ControlMessage, RehearsalAction } from '../control/index.js';
import { envelope } from './recording.js';
import type { RehearsalSpec } from './request.js';

export interface RehearsalDeps {
  config: Config;
  log: Logger;
  lifecycle: MatchLifecycle;
  routing: Pick<MatchRouting, 'obs'>;
  control: ControlBus;
  events: MainEventBus;
}

/** An answer for the admin route: HTTP status and JSON body. */
export interface Answer { status: number; body: unknown }

export interface RehearsalStatus {
  groupCode: string;
  recording: 'recorded' | 'upload';
  speed: number;
  loop: boolean;
  startRound: number;
  /** playing, paused, resetting (a backward seek or a loop restarts the match), ended. */
  state: string;
  /** The round the playback is in (0: before round 1), and of how many. */
  round: number;
  rounds: number;
  position: number;
  total: number;
  loops: number;
  teams: { left: { name: string; tricode: string }; right: { name: string; tricode: string } };
  startedAt: number;
  /** When it ends at the latest (REHEARSAL_MAX_MS). */
  endsBy: number;
  startedBy: string;
}

interface Running {
  spec: RehearsalSpec;
  packet: ObsLogonPacket;
  playback: Playback;
  startedAt: number;
  /** Its own reset runs: the removal that follows is not its end. */
  restarting: boolean;
  /** Force-ends of its code it published itself and has not seen yet; one it did not publish (an observer's logon, an operator) aborts a reset. */
  ownForceEnds: number;
  aborted: boolean;
  timers: NodeJS.Timeout[];
  /** Round start indexes, ascending, with their round numbers. */
  roundList: [number, number][];
}

/** After the last record of a recording that ends with game_end, the match removes itself; this is the fallback. */
const END_GRACE_MS = 2000;

export class Rehearsals {
  private readonly log: Logger;
  private readonly running = new Map<string, Running>();
  private readonly unsubscribe: Array<() => void> = [];

  constructor(private readonly deps: RehearsalDeps) {
    this.log = deps.log.child({ module: 'rehearsal' });
    this.unsubscribe.push(deps.events.on('matchStopped', ({ groupCode }) => this.onStopped(groupCode)));
    this.unsubscribe.push(deps.control.subscribe((message) => this.onControl(message)));
  }

  /** Whether this node runs a rehearsal of the code. */
  has(groupCode: string): boolean {
    return this.running.has(groupCode);
  }

  async start(spec: RehearsalSpec): Promise<Answer> {
    const { groupCode, recording } = spec;
    if (this.running.has(groupCode)) return { status: 409, body: { error: `Group code ${groupCode} already has a rehearsal` } };
    const packet: ObsLogonPacket = {
      type: 'authenticate', clientVersion: recording.clientVersion, obsName: 'Rehearsal', groupCode,
      leftTeam: spec.leftTeam, rightTeam: spec.rightTeam, ...(spec.toolsData ? { toolsData: spec.toolsData } : {}),
    };
    const opening = await this.deps.lifecycle.openRehearsal(packet, spec.tokenId);
    if (opening.kind === 'live') return { status: 409, body: { error: `Group code ${groupCode} has a live match or rehearsal` } };
    if (opening.kind === 'refused') return { status: 503, body: { error: opening.reason } };
    // Claimed: the code is this rehearsal's alone (a concurrent start got 'live' above).

    const raws = recording.records.map((r) => envelope(r, groupCode));
    const startIndex = this.indexOfRound(spec, spec.startRound)!;
    const r: Running = {
      spec, packet, startedAt: Date.now(), restarting: false, ownForceEnds: 0, aborted: false, timers: [],
      roundList: [...recording.rounds.entries()].map(([n, i]) => [i, n] as [number, number]).sort((a, b) => a[0] - b[0]),
      playback: new Playback({
        times: recording.times,
        pace: spec.speed,
        loop: spec.loop,
        loopFrom: startIndex,
        transport: {
          deliver: (from, to) => {
            for (let i = from; i < to; i++) this.deps.routing.obs(groupCode, raws[i]);
          },
          reset: () => this.restart(r),
        },
        onEnd: (reason) => this.onPlaybackEnd(r, reason),
      }),
    };
    this.running.set(groupCode, r);
    const maxTimer = setTimeout(() => {
      this.log.info({ groupCode }, 'rehearsal reached REHEARSAL_MAX_MS');
      void this.deps.lifecycle.forceEnd(groupCode);
    }, this.deps.config.REHEARSAL_MAX_MS);
    maxTimer.unref();
    r.timers.push(maxTimer);
    r.playback.start(startIndex);
    this.log.info({ groupCode, tokenId: spec.tokenId, recording: recording.source, speed: spec.speed, startRound: spec.startRound, loop: spec.loop }, 'rehearsal started');
    return { status: 201, body: this.status(r) };
  }

  /** An operator's action on a rehearsal this node runs; undefined when it runs none of the code. */
  async act(groupCode: string, action: RehearsalAction, round?: number): Promise<Answer | undefined> {
    const r = this.running.get(groupCode);
    if (!r) return undefined;
    const { playback } = r;
    switch (action) {
      case 'pause': playback.pause(); break;
      case 'resume': playback.resume(); break;
      case 'seek': {
        const index = round === undefined ? undefined : this.indexOfRound(r.spec, round);
        if (index === undefined) return { status: 400, body: { error: `round must be 0 (the start) or a round of the recording (1 to ${r.roundList.length})` } };
        if (!playback.seek(index)) return { status: 409, body: { error: 'The rehearsal cannot seek now (it ended)' } };
        break;
      }
      case 'stop': {
        r.playback.stop();
        const ended = await this.deps.lifecycle.forceEnd(groupCode);
        return ended ? { status: 200, body: { groupCode, stopped: true } } : { status: 500, body: { error: 'The rehearsal\'s match was not removed in time' } };
      }
      case 'status': break;
    }
    this.log.info({ groupCode, action, round }, 'rehearsal steered');
    return { status: 200, body: this.status(r) };
  }

  /**
   * Where round `round` starts: just after its first record (its first round_info), so that the
   * overlays show that round at once, paused or not; 0: the start of the recording.
   */
  private indexOfRound(spec: RehearsalSpec, round: number): number | undefined {
    if (round === 0) return 0;
    const first = spec.recording.rounds.get(round);
    return first === undefined ? undefined : first + 1;
  }

  /** The rehearsals this node runs. */
  list(): RehearsalStatus[] {
    return [...this.running.values()].map((r) => this.status(r));
  }

  private status(r: Running): RehearsalStatus {
    const { spec } = r;
    const p = r.playback.progress();
    let round = 0;
    for (const [index, n] of r.roundList) if (index <= p.position && index < p.total) round = n;
    return {
      groupCode: spec.groupCode, recording: spec.recording.source, speed: spec.speed, loop: spec.loop, startRound: spec.startRound,
      state: p.state, round, rounds: r.roundList.length, position: p.position, total: p.total, loops: p.loops,
      teams: { left: { name: spec.leftTeam.name, tricode: spec.leftTeam.tricode }, right: { name: spec.rightTeam.name, tricode: spec.rightTeam.tricode } },
      startedAt: r.startedAt, endsBy: r.startedAt + this.deps.config.REHEARSAL_MAX_MS, startedBy: spec.tokenId,
    };
  }

  /** A backward seek or a loop: the match ends and the code is claimed again (false: someone else has it now). */
  private async restart(r: Running): Promise<boolean> {
    const code = r.spec.groupCode;
    r.restarting = true;
    r.aborted = false;
    try {
      r.ownForceEnds++;
      await this.deps.lifecycle.forceEnd(code);
      // Someone else ended it meanwhile (a real observer's logon must get the code): no new claim.
      if (r.aborted || this.running.get(code) !== r) return false;
      const opening = await this.deps.lifecycle.openRehearsal(r.packet, r.spec.tokenId);
      return opening.kind === 'created';
    } catch {
      return false;
    } finally {
      // Its own force_end came back before the removal forceEnd waited for (or none was published: the match was gone).
      r.ownForceEnds = 0;
      r.restarting = false;
    }
  }

  private onPlaybackEnd(r: Running, reason: 'end' | 'reset_failed'): void {
    const code = r.spec.groupCode;
    if (reason === 'reset_failed') {
      this.log.info({ groupCode: code }, 'rehearsal ended: its group code could not be claimed again');
      this.finish(r);
      return;
    }
    // The recording's game_end removes the match by itself; otherwise (or if it did not) it is ended here.
    const timer = setTimeout(() => void this.deps.lifecycle.forceEnd(code), r.spec.recording.endsWithGameEnd ? END_GRACE_MS : 0);
    timer.unref();
    r.timers.push(timer);
  }

  private onStopped(groupCode: string): void {
    const r = this.running.get(groupCode);
    if (!r || r.restarting) return;
    this.finish(r);
  }

  private finish(r: Running): void {
    r.playback.stop();
    for (const t of r.timers) clearTimeout(t);
    if (this.running.get(r.spec.groupCode) === r) this.running.delete(r.spec.groupCode);
    this.log.info({ groupCode: r.spec.groupCode, position: r.playback.progress().position }, 'rehearsal ended');
  }

  private onControl(message: ControlMessage): void {
    // Any force-end of the code (stop, an observer's logon, an operator's end) stops the records at once.
    if (message.t === 'force_end') {
      const r = this.running.get(message.groupCode);
      if (!r) return;
      if (r.ownForceEnds > 0) r.ownForceEnds--;
      else if (r.restarting) r.aborted = true;
      else r.playback.stop();
    }
  }

  /** Shutdown: every rehearsal here ends now (it is never kept for a restart), within `ms`. */
  async endAll(ms: number): Promise<void> {
    const codes = [...this.running.keys()];
    for (const r of this.running.values()) r.playback.stop();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled(codes.map((code) => this.deps.lifecycle.forceEnd(code))),
      new Promise<void>((resolve) => { timer = setTimeout(resolve, ms); }),
    ]);
    clearTimeout(timer);
  }

  close(): void {
    for (const r of [...this.running.values()]) this.finish(r);
    for (const u of this.unsubscribe) u();
  }
}
