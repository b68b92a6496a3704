// bench:rest — autocannon against the REST routes, plus the ceilings, measured in the same run
// just before them (autocannon shares the 2 cores): a trivial uWS GET with a fixed JSON body (the issue's
// measure, `ofCeiling`), and a trivial uWS PUT that reads the same body as PUT /createPreview and
// answers a fixed JSON body (`ofPutCeiling`, like with like for the PUT: same connections,
// pipelining, request and answer sizes; no parsing, key check or store).
//
//   npm run bench:rest -- [--duration 10] [--connections 50] [--routes PUT,status] [--rounds 1]
//   (--routes: only the service routes whose name contains one of these strings; --rounds: below)
import { fork } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { EioClient, eventPayload } from './lib/eio-client.js';
import { jsonLine, machine, table, writeResults } from './lib/report.js';
import { startServiceProcess } from './lib/service.js';
import { opt } from './lib/args.js';

const DURATION = Number(opt('duration', '10'));
const CONNECTIONS = Number(opt('connections', '50'));
const ROUTES = opt('routes', '').split(',').filter(Boolean);
const ROUNDS = Number(opt('rounds', '1'));

/** Requests/s of the service this replaces, same machine and load generator (issue 4). */
const REFERENCE: Record<string, number> = { 'GET /status': 5400, 'GET /preview/:code': 4300, 'PUT /createPreview': 2300 };

interface Run { route: string; url: string; method?: 'GET' | 'PUT'; body?: string }

/** CPU seconds (user + system, all threads) of a process, from /proc/<pid>/stat. */
function cpuSecondsOf(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}

/**
 * One autocannon run; `cpu` reads the server's CPU seconds, so the result also has the server's CPU
 * per request (µs), which background load on the machine disturbs far less than requests/s.
 */
async function cannon(run: Run, cpu: () => number): Promise<Record<string, unknown>> {
  const cpuBefore = cpu();
  const result = await autocannon({
    url: run.url, method: run.method ?? 'GET', body: run.body,
    headers: run.body ? { 'content-type': 'application/json' } : undefined,
    connections: CONNECTIONS, pipelining: 1, duration: DURATION,
  });
  return {
    route: run.route,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuUsPerReq: ((cpu() - cpuBefore) * 1e6) / result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

// A preview as PUT /createPreview takes it (also the body of the PUT ceiling).
const preview = { type: 'preview', key: 'bench-key', previewCode: 'BENCH1', leftTeam: { name: 'Left', tricode: 'LFT', url: 'https://example.com/l.png' }, rightTeam: { name: 'Right', tricode: 'RGT', url: 'https://example.com/r.png' }, toolsData: { seriesInfo: { needed: 1, wonLeft: 0, wonRight: 0, mapInfo: [] } } };

// Both servers up first; each round then measures the ceilings and right after them the service's
// routes, and each share is taken against the ceilings of its own round: background load that
// comes and goes (a shared machine) then moves both sides of a ratio. `--rounds N` (default 1)
// reports the median of each figure over the rounds.
const ceiling = fork(path.resolve(import.meta.dirname, 'lib/ceiling-host.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const ceilingPort = await new Promise<number>((resolve) => ceiling.on('message', (m: { t: string; port: number }) => { if (m.t === 'ready') resolve(m.port); }));
const ceilingCpu = () => cpuSecondsOf(ceiling.pid!);

const svc = await startServiceProcess({ LOG_LEVEL: 'error', PREVIEW_MAX: '100000' });
const rest = `http://127.0.0.1:${svc.ports.rest}`;
// A preview and a live match (its team info) to read.
const created = await fetch(`${rest}/createPreview`, { method: 'PUT', body: JSON.stringify(preview), headers: { 'content-type': 'application/json' } });
if (created.status !== 200) throw new Error(`createPreview: ${created.status}`);
await new Promise<void>((resolve, reject) => {
  const c: EioClient = new EioClient({
    url: `http://127.0.0.1:${svc.ports.ingest}`,
    onOpen: () => c.emit('obs_logon', JSON.stringify({ type: 'authenticate', clientVersion: '0.3.3', obsName: 'Bench', key: 'bench-key', groupCode: 'BENCHG', leftTeam: preview.leftTeam, rightTeam: preview.rightTeam })),
    onEvent: (event, text) => { if (event === 'obs_logon_ack') (JSON.parse(eventPayload(text)) as { value: boolean }).value ? resolve() : reject(new Error('logon refused')); },
  });
});

const allRuns: Run[] = [
  { route: 'GET /status', url: `${rest}/status` },
  { route: 'GET /preview/:code', url: `${rest}/preview/BENCH1` },
  { route: 'GET /getTeamInfoForCode', url: `${rest}/getTeamInfoForCode?groupCode=BENCHG` },
  { route: 'PUT /createPreview', url: `${rest}/createPreview`, method: 'PUT', body: JSON.stringify(preview) },
];
const runs = ROUTES.length ? allRuns.filter((r) => ROUTES.some((name) => r.route.includes(name))) : allRuns;

const perRound: Record<string, unknown>[][] = [];
for (let round = 1; round <= ROUNDS; round++) {
  const rows: Record<string, unknown>[] = [];
  process.stderr.write(`round ${round}/${ROUNDS}: ceiling: trivial uWS GET, ${DURATION}s\n`);
  const ceilingResult = await cannon({ route: 'ceiling: trivial uWS GET', url: `http://127.0.0.1:${ceilingPort}/status` }, ceilingCpu);
  process.stderr.write(`round ${round}/${ROUNDS}: ceiling: trivial uWS PUT reading the body, ${DURATION}s\n`);
  const putCeilingResult = await cannon({ route: 'ceiling: trivial uWS PUT', url: `http://127.0.0.1:${ceilingPort}/createPreview`, method: 'PUT', body: JSON.stringify(preview) }, ceilingCpu);
  putCeilingResult.ofCeiling = (putCeilingResult.rps as number) / (ceilingResult.rps as number);
  rows.push(ceilingResult, putCeilingResult);
  for (const run of runs) {
    process.stderr.write(`round ${round}/${ROUNDS}: ${run.route}, ${DURATION}s\n`);
    const r = await cannon(run, () => svc.cpuSeconds());
    r.ofCeiling = (r.rps as number) / (ceilingResult.rps as number);
    if (run.method === 'PUT') r.ofPutCeiling = (r.rps as number) / (putCeilingResult.rps as number);
    const ref = REFERENCE[run.route];
    if (ref) r.vsReplaced = (r.rps as number) / ref;
    rows.push(r);
  }
  for (const r of rows) jsonLine({ bench: 'rest', round, ...r });
  perRound.push(rows);
}
ceiling.send({ t: 'stop' });
await svc.stop();

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const results = perRound[0].map((first, i) => {
  const row: Record<string, unknown> = { route: first.route };
  for (const [name, value] of Object.entries(first)) {
    if (typeof value === 'number') row[name] = median(perRound.map((rows) => rows[i][name] as number));
  }
  return row;
});
const columns = ['route', 'rps', 'p50', 'p99', 'cpuUsPerReq', 'ofCeiling', 'ofPutCeiling', 'vsReplaced', 'non2xx', 'errors'];
if (ROUNDS > 1) {
  const share = (rows: Record<string, unknown>[], route: string) => rows.find((r) => r.route === route);
  process.stdout.write('\nper round (PUT /createPreview):\n' + table(perRound.map((rows, i) => ({
    round: i + 1,
    ceilingGet: share(rows, 'ceiling: trivial uWS GET')?.rps, ceilingPut: share(rows, 'ceiling: trivial uWS PUT')?.rps,
    put: share(rows, 'PUT /createPreview')?.rps, ofCeiling: share(rows, 'PUT /createPreview')?.ofCeiling, ofPutCeiling: share(rows, 'PUT /createPreview')?.ofPutCeiling,
  })), ['round', 'ceilingGet', 'ceilingPut', 'put', 'ofCeiling', 'ofPutCeiling']) + '\n');
  process.stdout.write(`\nmedians over ${ROUNDS} rounds:`);
}
process.stdout.write('\n' + table(results, columns) + '\n');
process.stdout.write(`results: ${writeResults('rest', { bench: 'rest', machine: machine(), options: { DURATION, CONNECTIONS, ROUTES, ROUNDS }, results, perRound })}\n`);
process.exit(0);
