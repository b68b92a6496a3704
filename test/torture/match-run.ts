// One run of the torture harness (docs/reliability.md, "Torture harness"): a set-up (topology.ts), a
// receiver (receiver.ts), a best-of-3 fixture on a fresh group code (the example schedule's, whose
// players are the recording's), an observer that logs on through the balancer and plays the recorded
// match: the records before the stretch at once, the stretch at a fast pace with the fault struck at a
// random moment in it, the rest at once. Then it waits for the receiver to have the whole match and
// reads the series result. The clean run is the same with no fault.
import { connectObserver, logon } from '../helpers/clients.js';
import { BO3, exampleCsv, upload } from '../helpers/fixtures.js';
import { recordedMatch, replayLogon, sendRecords, type Replay } from '../helpers/recorded.js';
import { pollUntil } from '../helpers/waits.js';
import { check, cleanOf, heldDropped, inputsApplied, type CleanRun, type RunOutcome, type Stop } from './checks.js';
import { TortureReceiver } from './receiver.js';
import type { FaultContext, Scenario } from './scenarios.js';
import { ADMIN, AUTH_KEY, nodeEnv, startTopology, type TopologyKind } from './topology.js';

export const replay: Replay = recordedMatch();
const SECRET = `whsec_${Buffer.from('torture-harness-secret-32-bytes!').toString('base64')}`;
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789';
const TOKEN = ADMIN.slice(ADMIN.indexOf(':') + 1);
/** The stretch: this many records, played in about STRETCH_MS. */
const STRETCH_RECORDS = 300;
const STRETCH_MS = 8000;

export interface RunOptions {
  random: () => number;
  receiverDownMaxMs: number;
  /** The most a request is held at the receiver (overlaps of two senders show). */
  holdMs: number;
  /** The nodes' LOG_LEVEL (a failed run's logs are kept). */
  logLevel: string;
  log(line: string): void;
}

export interface RunResult extends RunOutcome {
  scenario: string; ms: number; stretch: [number, number]; faultAtMs: number;
  /** Each node's output, and the requests as the receiver saw them (node, seqs, ms since the first). */
  logs?: Record<string, string[]>;
}

function codeOf(random: () => number): string {
  return 'T' + Array.from({ length: 5 }, () => ALPHABET[Math.floor(random() * ALPHABET.length)]).join('');
}

/** The example's best of 3 on `code` (its players are the recording's ten). */
function fixtureCsv(code: string): string {
  const [header, ...rows] = exampleCsv().trim().split('\n');
  return `${header}\n${rows.find((r) => r.startsWith(`${BO3.code},`))!.replace(BO3.code, code)}\n`;
}

async function fixtureResults(rest: string, code: string): Promise<unknown> {
  const res = await fetch(`${rest}/admin/fixtures/${code}`, { headers: { authorization: `Bearer ${TOKEN}` }, signal: AbortSignal.timeout(5000) });
  const body = (await res.json()) as { results?: Array<{ map: string; scores: number[]; winner: number }>; wins?: number[] };
  return { results: body.results, wins: body.wins };
}

/** Plays one match on `kind` with `scenario`'s fault (none: the clean run); the receiver's view and the series result. */
async function play(kind: TopologyKind, scenario: Scenario | null, options: RunOptions) {
  const { random } = options;
  const receiver = new TortureReceiver(SECRET, options.holdMs);
  await receiver.start();
  const topology = await startTopology(kind, { ...nodeEnv(receiver.url, SECRET), LOG_LEVEL: options.logLevel });
  const code = codeOf(random);
  const n = replay.records.length;
  const from = 200 + Math.floor(random() * (n - STRETCH_RECORDS - 201));
  const to = from + STRETCH_RECORDS;
  const pace = (Number(replay.records[to].timestamp) - Number(replay.records[from].timestamp)) / STRETCH_MS;
  const faultAtMs = Math.floor(random() * STRETCH_MS);
  let stops: Stop[] = [];
  try {
    const uploaded = await upload(await topology.rest(), TOKEN, fixtureCsv(code));
    if (uploaded.status !== 201) throw new Error(`fixture upload: ${uploaded.status} ${JSON.stringify(uploaded.body)}`);
    const observer = connectObserver(topology.ingest);
    const { ack } = await logon(observer, 'obs_logon', replayLogon(replay, {
      key: AUTH_KEY, groupCode: code,
      leftTeam: { ...BO3.wolves, attackStart: true }, rightTeam: { ...BO3.owls, attackStart: false },
    }));
    if (!ack.value) throw new Error(`logon refused: ${ack.reason}`);
    await sendRecords(observer, replay, { pace: 'instant', groupCode: code, to: from });
    const ctx: FaultContext = { topology, receiver, random: (a, b) => a + random() * (b - a), receiverDownMaxMs: options.receiverDownMaxMs, log: options.log };
    const fault = scenario
      ? new Promise<Stop[]>((resolve, reject) => setTimeout(() => scenario.fault(ctx).then(resolve, reject), faultAtMs))
      : Promise.resolve([]);
    fault.catch(() => undefined); // awaited below; a failure is the run's
    await sendRecords(observer, replay, { pace, groupCode: code, from, to });
    // The rest of the match once the fault is over: sent at once, it would be a burst no observer
    // makes (a game's data comes at the game's pace), and a fault landing on it would lose the
    // match's end with the connection, leaving nothing to compare.
    stops = await fault;
    await sendRecords(observer, replay, { pace: 'instant', groupCode: code, from: to });
    // The whole match: seq 1…N without a gap, match_ended last. Generous: a receiver back from an
    // outage waits for the endpoint's next probe (back-off up to 30 s), a lost lease for a takeover.
    const whole = () => {
      const u = receiver.unique();
      const ended = u.find((e) => e.type === 'match_ended');
      return !!ended && u.filter((e) => e.seq <= ended.seq).length === ended.seq;
    };
    await receiver.waitFor(whole, 120_000);
    // The series result: on the node that ran the map, or in Redis.
    let results: unknown = null;
    await pollUntil(async () => {
      results = await fixtureResults(await topology.rest(), code).catch(() => null);
      return (results as { results?: unknown[] } | null)?.results?.length ? true : undefined;
    }, 'the series result', 20_000, 250).catch(() => undefined); // none by then: the check counts a wrong series
    observer.close();
    const logs = Object.fromEntries([...topology.nodes].map(([id, node]) => [id, node.out]));
    const t0 = receiver.arrivals[0]?.start ?? 0;
    logs.receiver = receiver.arrivals.map((a) => `+${a.start - t0}–${a.end - t0} ms ${a.node} ${a.events.map((e) => `${e.seq}:${e.type}`).join(' ')}`);
    return { receiver, code, results, stops, stretch: [from, to] as [number, number], faultAtMs, logs };
  } finally {
    await topology.stop();
    await receiver.close();
  }
}

/** The clean run's events, record and series result (one per harness invocation: every run plays the whole match). */
export async function cleanRun(options: RunOptions): Promise<CleanRun> {
  const { receiver, code, results, logs } = await play('embedded', null, options);
  const applied = inputsApplied(Object.values(logs), code);
  if (applied !== replay.records.length) throw new Error(`the clean run applied ${applied ?? 'an unknown number of'} of ${replay.records.length} records (the nodes' log level must be info or lower)`);
  return cleanOf(receiver.unique(), code, results);
}

export async function runOnce(scenario: Scenario, clean: CleanRun, options: RunOptions): Promise<RunResult> {
  const started = Date.now();
  const { receiver, code, results, stops, stretch, faultAtMs, logs } = await play(scenario.topology, scenario, options);
  const applied = inputsApplied(Object.values(logs), code);
  // Records a node dropped from what it held are the service's loss: never excused as the connection's.
  const dropped = heldDropped(Object.values(logs), code);
  const outcome = check(receiver.arrivals, receiver.unique(), clean, code, results, stops, applied === undefined || dropped ? 0 : replay.records.length - applied);
  if (applied === undefined) outcome.notes.push('the records applied are unknown (no `match removed` line: log level above info): compared strictly');
  if (dropped) outcome.notes.push('a node dropped data it held for the match (its bound reached): compared strictly');
  if (receiver.badSignatures) outcome.notes.push(`${receiver.badSignatures} requests with a bad signature`);
  return { scenario: scenario.name, ms: Date.now() - started, stretch, faultAtMs, ...outcome, logs };
}
