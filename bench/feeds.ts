// bench:feeds — what polling GET /feeds costs (README "Feeds for graphics systems", docs/feeds.md).
//
//   npm run bench:feeds -- [--duration 5] [--connections 20] [--miss-only]
//
// 1. The miss path, in this process: the recorded match's states as the shard serializes them,
//    each loaded into a FeedCache (JSON.parse, the rows) and rendered (both feeds, three formats, the
//    ETag digest): CPU µs per frame. A graphics system polling a changing match pays this at most once
//    per frame of the match (the texts are shared by every poller, feed and format). Then the JSON
//    feeds (bench:events' vMix load) by path: from the frame text, and from the shard's tables.
// 2. The hit path, against the service (its own process, autocannon): the recorded match played to
//    round 10 and left there; GET /status (the floor), GET /match/:code (the whole frame), a feed
//    answered 200 from the cache and 304 with If-None-Match: requests/s and the service's CPU µs per
//    request (from /proc, steadier than requests/s on a shared machine).
import autocannon from 'autocannon';
import fs from 'node:fs';
import { FeedCache } from '#built/main/feeds/cache.js';
import { feedTablesOf, type MatchData } from '#built/protocol/feed-tables.js';
import { matchDataJson, wireMessage } from '#built/protocol/wire.js';
import { playReplay } from '#built/tools/replay-client.js';
import { recordedMatch } from '#built/tools/recorded-match.js';
import { Match } from '#built/workers/match/match.js';
import { serializeMatch } from '#built/workers/match/serialize.js';
import { flag, opt } from './lib/args.js';
import { jsonLine, machine, table, writeResults } from './lib/report.js';
import { startServiceProcess } from './lib/service.js';

const DURATION = Number(opt('duration', '5'));
const CONNECTIONS = Number(opt('connections', '20'));
const replay = recordedMatch();

// 1. Miss path.
const h = replay.header;
const m = Match.create({ groupCode: h.groupCode, leftTeam: h.leftTeam as never, rightTeam: h.rightTeam as never, organizationId: '', isSupporter: false }, Number(replay.records[0].timestamp), { sponsorLogoUrl: 'x' });
const texts: string[] = [];
for (const rec of replay.records) {
  const ts = Number(rec.timestamp);
  m.advance(ts);
  m.apply(rec, ts);
  texts.push(serializeMatch(m, ts));
}
const cache = new FeedCache((t) => t);
// CPU time of this process (process.cpuUsage), not wall time: steadier on a shared machine.
const missRun = (): number => {
  const start = process.cpuUsage();
  for (const text of texts) {
    const frame = {};
    cache.load(frame, text);
    for (const feed of ['scoreboard', 'players'] as const) for (const format of ['json', 'csv', 'xml'] as const) cache.text(frame, feed, format);
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / texts.length;
};
missRun(); // warm-up
const missUs = [missRun(), missRun(), missRun()].sort((a, b) => a - b)[1];
// The vMix load of bench:events (both feeds as JSON), by path. From the frame text: what a local
// match cost before issue 26's cost work (and another node's costs now): the wire text unescaped,
// parsed, the tables made. From the shard's tables (a local match now): in the shard, the tables of
// the state (here: of the parsed frame, equal by test/workers/match/feed-tables.test.ts) and their two
// JSON texts; on the main thread, the scoreboard's text parsed and both feeds' texts and ETags.
const wires = texts.map(wireMessage);
const parsed = texts.map((t) => JSON.parse(t) as MatchData);
const shardTexts = parsed.map((p) => { const t = feedTablesOf(p); return { sb: JSON.stringify({ scoreboard: t.scoreboard, serverTime: t.serverTime }), players: JSON.stringify(t.players) }; });
const perFrame = (work: (i: number) => void): number => {
  const run = () => { const start = process.cpuUsage(); for (let i = 0; i < texts.length; i++) work(i); const u = process.cpuUsage(start); return (u.user + u.system) / texts.length; };
  run();
  return [run(), run(), run()].sort((a, b) => a - b)[1];
};
const jsonFeeds = (frame: object) => { cache.text(frame, 'scoreboard', 'json'); cache.text(frame, 'players', 'json'); };
const fromText = perFrame((i) => { const frame = {}; cache.load(frame, matchDataJson(wires[i])); jsonFeeds(frame); });
const shardPart = perFrame((i) => { const t = feedTablesOf(parsed[i], 0); JSON.stringify({ scoreboard: t.scoreboard, serverTime: t.serverTime }); JSON.stringify(t.players); });
const mainPart = perFrame((i) => { const frame = {}; cache.loadTables(frame, JSON.parse(shardTexts[i].sb) as never, shardTexts[i].players); jsonFeeds(frame); });
const avgBytes = texts.reduce((n, t) => n + t.length, 0) / texts.length;
const miss = {
  frames: texts.length, avgFrameBytes: Math.round(avgBytes), usPerFrameAllFeedsAndFormats: Number(missUs.toFixed(1)),
  jsonFeedsFromFrameTextUs: Number(fromText.toFixed(1)), jsonFeedsFromShardTablesShardUs: Number(shardPart.toFixed(1)), jsonFeedsFromShardTablesMainUs: Number(mainPart.toFixed(1)),
};
jsonLine({ bench: 'feeds', part: 'miss', ...miss });
if (flag('miss-only')) {
  process.stdout.write('\n' + table([miss], Object.keys(miss)) + '\n');
  process.exit(0);
}

// 2. Hit path.
function cpuSecondsOf(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
const svc = await startServiceProcess({ LOG_LEVEL: 'error' });
const rest = `http://127.0.0.1:${svc.ports.rest}`;
const code = 'FEEDBN';
const played = await playReplay(replay, { url: `http://127.0.0.1:${svc.ports.ingest}`, key: 'bench-key', pace: 'instant', groupCode: code, to: 1500 });
// Wait for the frame of the last record (the shard's next cycle): the players table stops changing.
const etagOf = async (url: string): Promise<string> => (await fetch(url)).headers.get('etag') ?? '';
for (let i = 0, last = ''; i < 200; i++) {
  const etag = await etagOf(`${rest}/feeds/${code}/players.csv`);
  if (etag !== '' && etag === last) break;
  last = etag;
  await new Promise((r) => setTimeout(r, 100));
}

// The If-None-Match of a 304 run is taken just before it. The scoreboard's clock (round 10's, on the
// service's clock) changes its text once a second until it reaches 0: those polls are answered 200.
const runs: { route: string; url: string; etag?: boolean }[] = [
  { route: 'GET /status', url: `${rest}/status` },
  { route: 'GET /match/:code', url: `${rest}/match/${code}` },
  { route: 'GET /feeds/:code/players.csv (200)', url: `${rest}/feeds/${code}/players.csv` },
  { route: 'GET /feeds/:code/players.csv (304)', url: `${rest}/feeds/${code}/players.csv`, etag: true },
  { route: 'GET /feeds/:code/players.xml (304)', url: `${rest}/feeds/${code}/players.xml`, etag: true },
  { route: 'GET /feeds/:code/scoreboard.json (304)', url: `${rest}/feeds/${code}/scoreboard.json`, etag: true },
];
const rows: Record<string, unknown>[] = [];
for (const run of runs) {
  process.stderr.write(`${run.route}, ${DURATION}s\n`);
  const before = cpuSecondsOf(svc.child.pid!);
  const headers = run.etag ? { 'if-none-match': await etagOf(run.url) } : undefined;
  const r = await autocannon({ url: run.url, headers, connections: CONNECTIONS, duration: DURATION });
  const row = {
    route: run.route, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99,
    cpuUsPerReq: Number((((cpuSecondsOf(svc.child.pid!) - before) * 1e6) / r.requests.total).toFixed(1)),
    statuses: `2xx ${r['2xx']} 3xx ${r['3xx']} other ${r.non2xx - r['3xx']}`, errors: r.errors + r.timeouts,
  };
  jsonLine({ bench: 'feeds', part: 'hit', ...row });
  rows.push(row);
}
played.socket.close();
await svc.stop();

process.stdout.write('\nmiss path (per frame, both feeds × three formats, in-process):\n' + table([miss], ['frames', 'avgFrameBytes', 'usPerFrameAllFeedsAndFormats', 'jsonFeedsFromFrameTextUs', 'jsonFeedsFromShardTablesShardUs', 'jsonFeedsFromShardTablesMainUs']) + '\n');
process.stdout.write('\nhit path (service process, autocannon):\n' + table(rows, ['route', 'rps', 'p50', 'p99', 'cpuUsPerReq', 'statuses', 'errors']) + '\n');
process.stdout.write(`results: ${writeResults('feeds', { bench: 'feeds', machine: machine(), options: { DURATION, CONNECTIONS }, miss, hit: rows })}\n`);
process.exit(0);
