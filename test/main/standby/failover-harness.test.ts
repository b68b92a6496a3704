// The standby relay's failover, looped (docs/reliability.md, "A standby observer"): the real relay
// (src/main/standby/relay.ts) with the real match engine behind it, driven as routing drives it
// (matches/routing.ts: a seat's payload through the relay when it is active, else applied with the
// observer clock's time), on the recorded 19-round match. Hundreds of failovers, at a cut every 20
// records: the primary and a standby 300 ms behind, the primary silent after the cut; the relay
// begun by an armed window or only by the standby's first copy (a window armed on another node whose
// ControlBus message did not arrive), and two silences shorter than FAILOVER_SILENCE_MS before the
// cut (the game quiet for both; the primary's PC stalling while the standby goes on). Each trial must
// fail over once, from its cut, never before the primary's silence, to the clean run's state: no
// record lost, none applied twice. Time is vitest's fake clock (the relay's 100 ms check and Date.now).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../../src/main/base/config.js';
import { createLogger } from '../../../src/main/base/log.js';
import { MemoryControlBus } from '../../../src/main/control/adapters/memory/control-bus.js';
import { ObserverClock } from '../../../src/main/matches/observer-clock.js';
import { MemoryStandbyStore } from '../../../src/main/standby/adapters/memory/standby-store.js';
import { StandbyRelay, type FailoverRecord } from '../../../src/main/standby/relay.js';
import type { Seat } from '../../../src/main/sessions/index.js';
import { recordedMatch } from '../../../src/tools/recorded-match.js';
import { Match } from '../../../src/workers/match/match.js';
import { DEFAULT_SPONSOR_LOGO_URL } from '../../../src/workers/match/tools.js';
import { expectEqual } from '../../helpers/equal.js';

type Rec = { type: string; data: unknown; timestamp: number };
const replay = recordedMatch() as unknown as { header: any; records: Rec[] };
const records = replay.records;
const CODE = 'HARNES';
const config = loadConfig({ FAILOVER_SILENCE_MS: '3000', FAILOVER_HOLD_DOWN_MS: '30000' });
const log = createLogger({ LOG_LEVEL: 'silent', LOG_FORMAT: 'json' }, { write: () => undefined });

/** Fake ms between two records, the standby's lag behind the primary, the standby's first record before the cut. */
const GAP = 20;
const LAG = 300;
const LEAD_IN = 100;

const primaryRaw = records.map((r) => JSON.stringify({ ...r, groupCode: CODE, obsName: 'Primary#EUW' }));
const standbyRaw = records.map((r) => JSON.stringify({ ...r, groupCode: CODE, obsName: 'Standby#EUW' }));

function newMatch(): Match {
  const h = replay.header;
  return Match.create({ groupCode: CODE, leftTeam: h.leftTeam, rightTeam: h.rightTeam, toolsData: h.toolsData, organizationId: '', isSupporter: false }, h.logStartTime, { sponsorLogoUrl: DEFAULT_SPONSOR_LOGO_URL });
}
const applyRaw = (match: Match, raw: string) => {
  const envelope = JSON.parse(raw) as Rec;
  return match.apply(envelope, envelope.timestamp).ok;
};

interface Variant {
  name: string;
  /** The owner was told of the window before the standby's first copy (else the relay begins with that copy). */
  armed: boolean;
  /** A silence shorter than FAILOVER_SILENCE_MS from this record on (relative to the standby's first): both observers, or the primary alone. */
  pause?: { at: (first: number, cut: number) => number; ms: number; who: 'both' | 'primary' };
}

const VARIANTS: Variant[] = [
  { name: 'armed', armed: true },
  { name: 'begun by the standby', armed: false },
  // The primary's records before it went out before the relay existed; the standby's copies of them
  // arrive in a quiet stretch of the game: evidence of nothing, since the primary was heard 2 s ago.
  { name: 'begun by the standby, the game quiet for 2 s', armed: false, pause: { at: (first) => first + 2, ms: 2000, who: 'both' } },
  // The standby runs 1.5 s ahead while the primary's PC stalls, then the primary's backlog arrives.
  { name: 'armed, the primary stalling 1.5 s', armed: true, pause: { at: (_first, cut) => cut - 50, ms: 1500, who: 'primary' } },
];

// The clean run, and its state before each trial's first record and at each trial's end.
const CUTS: number[] = [];
for (let cut = LEAD_IN + 20; cut + 5000 / GAP < records.length; cut += 20) CUTS.push(cut);
/** When a seat sends record i (fake ms after the trial's start, at record `cut - LEAD_IN`). */
function sendTime(v: Variant, cut: number, i: number, seat: Seat): number {
  const first = cut - LEAD_IN;
  const paused = v.pause !== undefined && i >= v.pause.at(first, cut) && (seat === 'group' || v.pause.who === 'both');
  return (i - first) * GAP + (seat === 'standby' ? LAG : 0) + (paused ? v.pause!.ms : 0);
}
/** The trial's last record: the first whose standby copy comes after the failover (FAILOVER_SILENCE_MS after the primary's last, a check, a margin). */
function endOf(v: Variant, cut: number): number {
  let i = cut;
  while (sendTime(v, cut, i, 'standby') <= sendTime(v, cut, cut, 'group') + config.FAILOVER_SILENCE_MS + 300) i++;
  return i;
}
/** The clean run's snapshot before record i (a trial's start), its state after record i (a trial's end). */
const snapshotsAt = new Map<number, string>();
const statesAt = new Map<number, string>();
{
  const clean = newMatch();
  const starts = new Set(CUTS.map((c) => c - LEAD_IN));
  const ends = new Set(VARIANTS.flatMap((v) => CUTS.map((c) => endOf(v, c))));
  records.forEach((r, i) => {
    if (starts.has(i)) snapshotsAt.set(i, clean.toSnapshot());
    clean.apply(r, r.timestamp);
    if (ends.has(i)) statesAt.set(i, JSON.stringify(clean.liveState()));
  });
}

interface Outcome { failovers: FailoverRecord[]; primaryLastAt: number; state: string }

function trial(cut: number, v: Variant): Outcome {
  const first = cut - LEAD_IN;
  const end = endOf(v, cut);
  const T0 = 1_000_000_000_000;
  vi.useFakeTimers({ now: T0, toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'Date'] });
  const match = Match.fromSnapshot(snapshotsAt.get(first)!);
  const clock = new ObserverClock();
  const failovers: FailoverRecord[] = [];
  const relay = new StandbyRelay({
    config, log, store: new MemoryStandbyStore(), control: new MemoryControlBus(), runsHere: () => true,
    apply: (_code, raw) => applyRaw(match, raw), primaryLastAt: (code) => clock.last(code), failedOver: (_code, record) => failovers.push(record),
  });
  // The primary has been streaming: the clock heard it just before the first record here.
  clock.seen(CODE, T0 - GAP);
  if (v.armed) void relay.watch(CODE, T0 + config.STANDBY_ARM_WINDOW_MS);
  // As routing delivers an observer payload on the owner.
  const deliver = (seat: Seat, raw: string, now: number) => {
    if (relay.active(CODE, seat)) {
      if (seat === relay.primaryOf(CODE)) clock.seen(CODE, now);
      relay.receive(CODE, seat, raw, now);
    } else {
      clock.seen(CODE, now);
      applyRaw(match, raw);
    }
  };
  const at = (i: number, seat: Seat) => T0 + sendTime(v, cut, i, seat);
  const sends: Array<{ t: number; seat: Seat; i: number }> = [];
  for (let i = first; i <= cut; i++) sends.push({ t: at(i, 'group'), seat: 'group', i });
  for (let i = first; i <= end; i++) sends.push({ t: at(i, 'standby'), seat: 'standby', i });
  sends.sort((x, y) => x.t - y.t || (x.seat === y.seat ? x.i - y.i : x.seat === 'group' ? -1 : 1));
  let primaryLastAt = 0;
  try {
    for (const s of sends) {
      vi.advanceTimersByTime(s.t - Date.now());
      deliver(s.seat, s.seat === 'group' ? primaryRaw[s.i] : standbyRaw[s.i], s.t);
      if (s.seat === 'group') primaryLastAt = s.t;
    }
  } finally {
    relay.close();
    vi.useRealTimers();
  }
  return { failovers, primaryLastAt, state: JSON.stringify(match.liveState()) };
}

afterEach(() => { vi.useRealTimers(); });

describe('the standby relay failing over at a cut every 20 records of the recorded match', () => {
  it.each(VARIANTS)('$name: once, after the primary\'s silence, to the clean run\'s state', (v) => {
    const hows = new Map<string, number>();
    for (const cut of CUTS) {
      const o = trial(cut, v);
      expect(o.failovers.map((f) => f.cause), `cut ${cut}`).toEqual(['primary_silent']);
      expect(o.failovers[0].at - o.primaryLastAt, `cut ${cut}`).toBeGreaterThanOrEqual(config.FAILOVER_SILENCE_MS);
      hows.set(o.failovers[0].how, (hows.get(o.failovers[0].how) ?? 0) + 1);
      const want = statesAt.get(endOf(v, cut))!;
      if (o.state !== want) expectEqual(JSON.parse(o.state), JSON.parse(want), `cut ${cut}`);
    }
    expect(Object.fromEntries(hows)).toEqual({ cut: CUTS.length });
    expect(CUTS.length).toBeGreaterThan(100);
  });
});
