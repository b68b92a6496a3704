// The torture harness (docs/reliability.md, "Torture harness"; issue 35), outside the default suite:
//
//   npm run torture -- --scenario kill-embedded --runs 50      (one scenario)
//   npm run torture -- --runs 50                                (every scenario, 300 runs)
//
// Options: --scenario <name>[,<name>…] (default all), --runs <n per scenario> (default 5), --hogs <n>
// CPU hogs (`yes > /dev/null`) beside it (default 2; 0 for none), --receiver-down-max-ms (default
// 60000: the receiver-down outage is 5–60 s), --hold-ms (the most the receiver holds a request; 200),
// --seed (the runs' random choices), --log-level (the nodes'; info), --out <file> (every run's
// result as JSON; and each run's as it ends, to <file>.runs.jsonl). A failed run's node logs and receiver view go to <tmp>/ods-torture-<seed>/. It loops each
// scenario's fault (scenarios.ts) on a fresh set-up, checks each run against a clean run of the same
// records (checks.ts), prints a line per run, then the counts per scenario as JSON and as a table.
// Exit code 0 when every run held.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cleanRun, runOnce, type RunOptions, type RunResult } from './match-run.js';
import { SCENARIOS } from './scenarios.js';

const { values } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'all' },
    runs: { type: 'string', default: '5' },
    hogs: { type: 'string', default: '2' },
    'receiver-down-max-ms': { type: 'string', default: '60000' },
    'hold-ms': { type: 'string', default: '200' },
    'log-level': { type: 'string', default: 'info' },
    seed: { type: 'string', default: String(Date.now() % 1_000_000) },
    parallel: { type: 'string', default: '1' },
    out: { type: 'string' },
  },
});
const names = values.scenario === 'all' ? SCENARIOS.map((s) => s.name) : values.scenario!.split(',');
const unknown = names.filter((n) => !SCENARIOS.some((s) => s.name === n));
if (unknown.length) {
  console.error(`unknown scenario ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.name).join(', ')}`);
  process.exit(2);
}
const runs = Number(values.runs);
const seed = Number(values.seed);
const parallel = Math.max(1, Number(values.parallel));

/** mulberry32: the runs' random choices (stretch, fault moment, outage length, group code) from --seed. */
function seeded(a: number): () => number {
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const hogs: ChildProcess[] = Array.from({ length: Number(values.hogs) }, () => spawn('yes', [], { stdio: ['ignore', 'ignore', 'ignore'] }));
const stopHogs = () => { for (const h of hogs) if (h.exitCode === null) h.kill('SIGKILL'); };
process.once('exit', stopHogs);
process.once('SIGINT', () => { stopHogs(); process.exit(130); });

/** A run's options: its random choices from the seed, the scenario and the run's number (the same whatever runs beside it). */
const optionsOf = (stream: number): RunOptions => ({
  random: seeded(seed * 1009 + stream),
  receiverDownMaxMs: Number(values['receiver-down-max-ms']),
  holdMs: Number(values['hold-ms']),
  logLevel: values['log-level']!,
  log: (line) => console.log(`    ${line}`),
});

const started = Date.now();
console.log(`torture: ${names.join(', ')} × ${runs}, ${hogs.length} CPU hogs, ${parallel} at once, seed ${seed}`);
const clean = await cleanRun(optionsOf(0));
console.log(`clean run: ${clean.game.length} game events (${Math.round((Date.now() - started) / 1000)} s)`);
const results: RunResult[] = [];
const failed = (r: RunResult) => r.matchKeys > 1 || r.lost > 0 || r.outOfOrder > 0 || r.wrongEvents > 0 || r.wrongRecord || r.wrongSeries || r.twoOwners > 0 || r.notes.some((n) => n.startsWith('harness error'));

/** One run of `name` (its `i`-th), reported as it ends. */
async function one(name: string, i: number): Promise<RunResult> {
  const scenario = SCENARIOS.find((s) => s.name === name)!;
  let r: RunResult;
  const t = Date.now();
  try {
    r = await runOnce(scenario, clean, optionsOf(SCENARIOS.indexOf(scenario) * 100_000 + i));
  } catch (err) {
    // The first line says what failed; the last lines of the rest (a node's output when it did not start) say why.
    const [first, ...rest] = (err as Error).message.split('\n');
    const why = rest.filter((l) => l.trim() !== '').slice(-10).map((l) => `  ${l.slice(0, 300)}`);
    r = { scenario: name, ms: Date.now() - t, stretch: [0, 0], faultAtMs: 0, lost: 0, outOfOrder: 0, wrongEvents: 0, wrongRecord: false, wrongSeries: false, twoOwners: 0, excused: 0, duplicates: 0, matchKeys: 0, inputsLost: 0, excusedWrong: 0, notes: [`harness error: ${first}`, ...why] };
  }
  const bad = failed(r);
  console.log(`  ${name} #${i}: ${bad ? 'FAIL' : 'ok'} (${Math.round(r.ms / 1000)} s, records ${r.stretch[0]}–${r.stretch[1]}, fault at +${r.faultAtMs} ms, ${r.duplicates} repeats${r.excused ? `, ${r.excused} in-flight overlaps excused` : ''}${r.inputsLost ? `, ${r.inputsLost} records lost at the fault` : ''})`);
  for (const note of r.notes) console.log(`    ${note}`);
  if ((bad || r.inputsLost > 0) && r.logs) {
    const dir = path.join(os.tmpdir(), `ods-torture-${seed}`, `${name}-${i}`);
    fs.mkdirSync(dir, { recursive: true });
    for (const [who, lines] of Object.entries(r.logs)) fs.writeFileSync(path.join(dir, `${who}.log`), lines.join('\n') + '\n');
    console.log(`    logs: ${dir}`);
  }
  delete r.logs;
  // Each run as it ends (a harness stopped early keeps what it ran): <out>.runs.jsonl.
  if (values.out) fs.appendFileSync(`${values.out}.runs.jsonl`, JSON.stringify(r) + '\n');
  return r;
}

// The scenarios' runs in turn (the first of each, then the second of each, …: a harness stopped
// early has as many runs of each), `parallel` of them at a time (each on its own set-up and ports).
const queue = Array.from({ length: runs }, (_, k) => names.map((name) => ({ name, i: k + 1 }))).flat();
for (const name of names) console.log(`${name}: ${SCENARIOS.find((s) => s.name === name)!.what}`);
await Promise.all(Array.from({ length: Math.min(parallel, queue.length) }, async () => {
  for (let job = queue.shift(); job; job = queue.shift()) results.push(await one(job.name, job.i));
}));
stopHogs();

const summary = names.map((name) => {
  const mine = results.filter((r) => r.scenario === name);
  return {
    scenario: name, runs: mine.length,
    failedRuns: mine.filter(failed).length,
    harnessErrors: mine.filter((r) => r.notes.some((n) => n.startsWith('harness error'))).length,
    eventsLost: mine.reduce((n, r) => n + r.lost, 0),
    outOfOrder: mine.reduce((n, r) => n + r.outOfOrder, 0),
    wrongEvents: mine.reduce((n, r) => n + r.wrongEvents, 0),
    wrongRecords: mine.filter((r) => r.wrongRecord).length,
    wrongSeries: mine.filter((r) => r.wrongSeries).length,
    splitMatches: mine.filter((r) => r.matchKeys > 1).length,
    twoOwners: mine.reduce((n, r) => n + r.twoOwners, 0),
    inFlightExcused: mine.reduce((n, r) => n + r.excused, 0),
    runsWithInputsLost: mine.filter((r) => r.inputsLost > 0).length,
    inputsLost: mine.reduce((n, r) => n + r.inputsLost, 0),
    excusedWrong: mine.reduce((n, r) => n + r.excusedWrong, 0),
    repeats: mine.reduce((n, r) => n + r.duplicates, 0),
    runSeconds: Math.round(mine.reduce((n, r) => n + r.ms, 0) / 1000),
  };
});
const took = Math.round((Date.now() - started) / 1000);
console.log(JSON.stringify({ seed, hogs: hogs.length, parallel, seconds: took, scenarios: summary }, null, 2));
const cols = ['scenario', 'runs', 'failedRuns', 'eventsLost', 'outOfOrder', 'wrongEvents', 'wrongRecords', 'wrongSeries', 'splitMatches', 'twoOwners', 'inFlightExcused', 'runsWithInputsLost', 'inputsLost', 'excusedWrong', 'runSeconds'] as const;
console.log(`| ${cols.join(' | ')} |\n|${cols.map(() => '---').join('|')}|`);
for (const s of summary) console.log(`| ${cols.map((c) => s[c]).join(' | ')} |`);
console.log(`took ${took} s`);
if (values.out) fs.writeFileSync(values.out, JSON.stringify({ seed, summary, results }, null, 2));
process.exit(summary.every((s) => s.failedRuns === 0) ? 0 : 1);
