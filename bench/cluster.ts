// bench:cluster — the scale-out on Redis with real processes: what a frame costs when it crosses
// nodes, what Redis costs, how long a takeover takes after `kill -9`, and what N nodes would hold.
//
//   npm run bench:cluster -- [--matches 50] [--overlays 2] [--rate 20] [--duration 15] [--warmup 5]
//                            [--nodes 1,2,3] [--owner-probes 10] [--sample 50]
//                            [--takeover] [--no-takeover] [--ttls 10000,2000] [--name NAME]
//
// 1. Steady state. Observers (raw Engine.IO clients, as bench:broadcast) log on to node A and play
//    the recorded match's game messages in order at --rate msg/s; F overlays per match sit on the
//    other nodes (overlay f on node 1 + f mod (N-1)), so every frame crosses Redis; in the 1-process
//    run (REDIS_URL unset, the embedded default) they sit on the only node. Every run also has
//    --owner-probes overlays on node A (one on each of the first matches) to time the owner's own
//    overlays. One more 1-process run with no overlays but those (F=0) gives the owner's role alone:
//      owner overhead per frame    = CPU_A(N nodes) / frames A published − CPU(1 process, F=0) / frames
//      receiver overhead per frame = (CPU_B − d × deliveries_B) / frames B received through Redis,
//      d = (CPU(1 process, F) − CPU(1 process, F=0)) / deliveries to the F overlays (a delivery's cost)
//    Bytes through Redis: redis-server's INFO stats (total_net_input/output_bytes) and the nodes'
//    ods_cluster_frame_bytes_published_total, per frame published. Redis CPU from
//    /proc/<pid>/stat per 1,000 frames published. Latency: probes in scoreboard money (bench/lib/probes.ts),
//    each sampled overlay timing the first frame that shows each probe, by node.
// 2. Takeover (--takeover, part of the default run): 2 nodes, one observer (socket.io-client with
//    the real client's options) through a failover proxy that sends it to node A while A lives,
//    an overlay on node B; the first part of the recording is sent at once, then the game goes on
//    at --rate msg/s; A is killed (SIGKILL) mid-match. Reported: kill → B's "match adopted" log line,
//    kill → first frame on B from the new owner; what was lost, against an uninterrupted run of the
//    same records in a 1-process service (TRUST_REPLAY_TIMESTAMPS=true on both): the final frames
//    compared, the match's stateVersion (every accepted message raises it) in the final snapshot vs
//    1 + the messages the reference applied, and the design's bound: records A applied after the
//    snapshot B adopted + records written into the dying connection.
// 3. Projected capacity for N nodes from the unit costs (printed with its formula).
import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Socket } from 'socket.io-client';
import { EioClient, eventPayload, loggedOnObserver } from './lib/eio-client.js';
import { PROBE_BASE, withProbe } from './lib/probes.js';
import { jsonLine, machine, percentile, table, writeResults } from './lib/report.js';
import { startServiceProcess } from './lib/service.js';
import { connectObserver as ioObserver, connected, overlay, logon as ioLogon } from '../test/helpers/clients.js';
import { logLines, startCluster, type Cluster } from '../test/helpers/cluster.js';
import { FailoverProxy } from '../test/helpers/failover-proxy.js';
import { scrapeMetrics } from '../test/helpers/metrics.js';
import { replayLogon } from '../test/helpers/recorded.js';
import { spawnService, tempDir, type ServiceProcess } from '../test/helpers/service-process.js';

import { recordedMatch } from '#built/tools/recorded-match.js';
import { flag, opt } from './lib/args.js';

// ---------------------------------------------------------------- options
const M = Number(opt('matches', '50'));
const F = Number(opt('overlays', '2'));
const RATE = Number(opt('rate', '20'));
const DURATION = Number(opt('duration', '15')) * 1000;
const WARMUP = Number(opt('warmup', '5')) * 1000;
const NODES = opt('nodes', '1,2,3').split(',').map(Number);
const OWNER_PROBES = Number(opt('owner-probes', '10'));
const SAMPLE = Number(opt('sample', '50'));
const TAKEOVER_ONLY = flag('takeover');
const TAKEOVER = !flag('no-takeover');
const TTLS = opt('ttls', '10000,2000').split(',').map(Number);
const NAME = opt('name', 'cluster');
const KEY = 'bench-key';
const FPS = 10; // a match's frames per second at most (one per 100 ms)

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (s: string) => process.stderr.write(s);

// The service's settings in every run (bench/lib/service.ts's, for nodes started by startCluster).
const BENCH_ENV: Record<string, string> = {
  AUTH_KEY: KEY, LOG_LEVEL: 'warn', MAX_LIVE_MATCHES: '100000', MAX_MATCHES_PER_KEY: '100000', MAX_SOCKETS_PER_ADDRESS: '0', MAX_CONNECTIONS_PER_ADDRESS: '0',
  SHARD_WORKERS: process.env.SHARD_WORKERS ?? '',
};
// Production's Redis settings (startCluster's defaults are the tests' short ones).
const REDIS_DEFAULTS = { REDIS_LEASE_TTL_MS: '10000', REDIS_PROBE_INTERVAL_MS: '2000' };

// ---------------------------------------------------------------- the recorded messages
const replay = recordedMatch();
const firstGame = replay.records.findIndex((r) => r.type === 'match_start');
const lobby = replay.records.slice(0, firstGame);
const game = replay.records.slice(firstGame + 1).filter((r) => !(r.type === 'round_info' && (r.data as { roundPhase?: string }).roundPhase === 'game_end'));

// ---------------------------------------------------------------- /proc and /metrics
function procCpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

interface NodeSample { cpu: number; frames: number; deliveries: number; applied: number; cluster: Record<string, number>; forwarded: Record<string, number>; loopP99: number }
async function sampleNode(node: ServiceProcess, redis: boolean): Promise<NodeSample> {
  const m = await scrapeMetrics(node.urls.metrics!);
  return {
    cpu: node.cpuSeconds(),
    frames: m.value('ods_frames_published_total'),
    deliveries: m.value('ods_messages_sent_total', { event: 'match_data' }),
    applied: m.value('ods_messages_applied_total'),
    cluster: redis ? { ...m.by('ods_cluster_frames_total', 'kind'), bytesPublished: m.value('ods_cluster_frame_bytes_published_total') } : {},
    forwarded: redis ? m.by('ods_cluster_forwarded_total', 'outcome') : {},
    loopP99: m.value('ods_nodejs_eventloop_lag_p99_seconds') * 1000,
  };
}

function parseInfo(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\r\n')) {
    const i = line.indexOf(':');
    if (i > 0 && !line.startsWith('#')) out[line.slice(0, i)] = line.slice(i + 1);
  }
  return out;
}
interface RedisSample { cpu: number; inBytes: number; outBytes: number; cmds: Record<string, { calls: number; usec: number }> }
async function sampleRedis(cluster: Cluster): Promise<RedisSample> {
  const stats = parseInfo(await cluster.redis.command('INFO', 'stats'));
  const cs = parseInfo(await cluster.redis.command('INFO', 'commandstats'));
  const cmds: RedisSample['cmds'] = {};
  for (const [k, v] of Object.entries(cs)) {
    if (!k.startsWith('cmdstat_')) continue;
    const calls = /calls=(\d+)/.exec(v), usec = /usec=(\d+)/.exec(v);
    cmds[k.slice(8)] = { calls: Number(calls?.[1] ?? 0), usec: Number(usec?.[1] ?? 0) };
  }
  return { cpu: procCpuSeconds(cluster.redis.pid()), inBytes: Number(stats.total_net_input_bytes), outBytes: Number(stats.total_net_output_bytes), cmds };
}

/** Warning and error lines of a node's log (JSON level ≥ 40, or stderr). */
function problems(node: ServiceProcess): string[] {
  return node.out.filter((l) => l.startsWith('stderr: ') || (/^\{/.test(l) && /"level":(4|5|6)\d/.test(l)));
}

// ---------------------------------------------------------------- load (raw Engine.IO clients)
function connectObserver(url: string, code: string): Promise<EioClient> {
  return loggedOnObserver(url, code, KEY, replay.header);
}

interface MatchLoad {
  code: string; observer: EioClient; overlays: EioClient[]; next: number; origin: number; sent: number;
  probe: number; sentAt: Map<number, number>; due: number; lastFrameAt: number; pending: boolean;
}
function countDue(m: MatchLoad, t: number): void {
  if (m.pending && t >= m.lastFrameAt + 100) { m.due++; m.lastFrameAt += 100; m.pending = false; }
  if (t >= m.lastFrameAt + 100) { m.due++; m.lastFrameAt = t; } else m.pending = true;
}

type Row = Record<string, unknown>;

/** One steady-state run: `n` processes (1 = REDIS_URL unset), `f` overlays per match. */
async function steadyRun(n: number, f: number): Promise<Row> {
  const label = n === 1 ? `1 process, F=${f}` : `${n} nodes`;
  let cluster: Cluster | null = null;
  let nodes: ServiceProcess[];
  if (n === 1) {
    nodes = [await spawnService({ ...BENCH_ENV, DATA_DIR: tempDir('ods-bench-') }, { inheritEnv: true })];
  } else {
    cluster = await startCluster(n, { ...BENCH_ENV, ...REDIS_DEFAULTS }, { inheritEnv: true });
    nodes = cluster.nodes;
  }
  const redis = n > 1;
  const matches: MatchLoad[] = [];
  const overlayNode: number[][] = []; // node index of each overlay, per match
  const received = new Array<number>(n).fill(0); // frames received by overlays, per node, while measuring
  const overlaysOn = new Array<number>(n).fill(0);
  const latencies: number[][] = Array.from({ length: n }, () => []);
  const sampledOn = new Array<number>(n).fill(0);
  let measuring = false;
  try {
    const A = nodes[0];
    for (let base = 0; base < M; base += 50) {
      await Promise.all(Array.from({ length: Math.min(50, M - base) }, async (_, k) => {
        const idx = base + k;
        const code = 'C' + idx.toString(36).toUpperCase().padStart(5, '0');
        const observer = await connectObserver(A.urls.ingest, code);
        for (const r of lobby) observer.emit('obs_data', JSON.stringify({ ...r, groupCode: code }));
        matches[idx] = { code, observer, overlays: [], next: 0, origin: 0, sent: 0, probe: PROBE_BASE, sentAt: new Map(), due: 0, lastFrameAt: -Infinity, pending: false };
      }));
    }
    log(`  ${label}: ${M} observers on node A`);
    const addOverlay = (m: MatchLoad, node: number, countsForDue: boolean) => {
      const sample = sampledOn[node] < SAMPLE || (!countsForDue);
      if (sample) sampledOn[node]++;
      if (countsForDue) overlaysOn[node]++;
      let maxSeen = 0;
      const c = new EioClient({
        url: nodes[node].urls.broadcast,
        onOpen: () => c.emit('logon', JSON.stringify({ groupCode: m.code })),
        onEvent: (event, text) => {
          if (event !== 'match_data') return;
          if (measuring && countsForDue) received[node]++;
          if (!sample) return;
          const now = Date.now();
          const frame = JSON.parse(eventPayload(text)) as { teams: { players: { money: number }[] }[] };
          let top = maxSeen;
          for (const team of frame.teams) for (const p of team.players) {
            if (p.money <= maxSeen) continue;
            const sent = m.sentAt.get(p.money);
            if (sent === undefined) continue;
            if (measuring) latencies[node].push(now - sent);
            if (p.money > top) top = p.money;
          }
          maxSeen = top;
        },
      });
      m.overlays.push(c);
    };
    matches.forEach((m, i) => {
      overlayNode[i] = [];
      for (let k = 0; k < f; k++) {
        const node = n === 1 ? 0 : 1 + (k % (n - 1));
        overlayNode[i].push(node);
        addOverlay(m, node, true);
      }
      if (i < OWNER_PROBES) addOverlay(m, 0, false);
    });
    await sleep(1000 + M * 2);
    log(`, ${M * f} overlays${OWNER_PROBES ? ` + ${Math.min(OWNER_PROBES, M)} probes on A` : ''}; warming up ${WARMUP / 1000}s`);

    const start = Date.now();
    matches.forEach((m, i) => { m.origin = start + (i * 1000) / M; });
    let sent = 0;
    const feed = setInterval(() => {
      const now = Date.now();
      for (const m of matches) {
        while (m.origin + (m.sent * 1000) / RATE <= now) {
          const rec = game[m.next];
          const data = withProbe(m, rec.type, rec.data, now);
          m.observer.emit('obs_data', JSON.stringify({ obsName: 'Bench', groupCode: m.code, type: rec.type, data }));
          if (measuring) { sent++; countDue(m, now); }
          m.next++;
          m.sent++;
          if (m.next >= game.length) { m.next = 0; m.sent = 0; m.origin = now; }
        }
        if (m.sentAt.size > 2000) { let k = 0; for (const key of m.sentAt.keys()) { if (k++ > 1000) break; m.sentAt.delete(key); } }
      }
    }, 10);
    await sleep(WARMUP);
    const genLoop = monitorEventLoopDelay({ resolution: 10 });
    genLoop.enable();
    const before = await Promise.all(nodes.map((x) => sampleNode(x, redis)));
    const r0 = cluster ? await sampleRedis(cluster) : null;
    const gen0 = process.cpuUsage();
    const t0 = Date.now();
    measuring = true;
    while (Date.now() - t0 < DURATION) {
      await sleep(1000);
      log(`\r  ${label}: ${((Date.now() - t0) / 1000).toFixed(0)}/${DURATION / 1000}s sent ${sent}, frames received ${received.reduce((a, b) => a + b, 0)}      `);
    }
    measuring = false;
    const t1 = Date.now();
    const after = await Promise.all(nodes.map((x) => sampleNode(x, redis)));
    const r1 = cluster ? await sampleRedis(cluster) : null;
    const gen = process.cpuUsage(gen0);
    clearInterval(feed);
    log('\n');
    const seconds = (t1 - t0) / 1000;
    const due = matches.reduce((a, m) => a + m.due + (m.pending ? 1 : 0), 0);
    const perNode = nodes.map((node, i) => {
      const b = before[i], a = after[i];
      const d = (k: string) => (a.cluster[k] ?? 0) - (b.cluster[k] ?? 0);
      const cpu = a.cpu - b.cpu;
      const lat = latencies[i].sort((x, y) => x - y);
      const deliveries = a.deliveries - b.deliveries;
      return {
        node: String.fromCharCode(97 + i), role: i === 0 ? 'owner' : 'receiver',
        cpuPct: (cpu / seconds) * 100, cpuSeconds: cpu,
        framesMade: a.frames - b.frames, // frames the node's shards made (the owner's)
        deliveries,
        applied: a.applied - b.applied,
        redisFramesPublished: d('framesPublished'), redisBytesPublished: d('bytesPublished'), redisKeyframesPublished: d('keyframesPublished'),
        redisFramesReceived: d('framesReceived'), redisKeyframesReceived: d('keyframesReceived'), keyframesRequested: d('keyframesRequested'),
        gaps: d('gaps'), noBase: d('noBase'), droppedStale: d('droppedStale'), badDeltas: d('badDeltas'), publishFailed: d('publishFailed'),
        forwarded: Object.fromEntries(Object.entries(a.forwarded).map(([k, v]) => [k, v - (b.forwarded[k] ?? 0)])),
        usPerDelivered: deliveries ? (cpu * 1e6) / deliveries : NaN,
        usPerFrameMade: a.frames - b.frames ? (cpu * 1e6) / (a.frames - b.frames) : NaN,
        usPerFrameReceived: d('framesReceived') ? (cpu * 1e6) / d('framesReceived') : NaN,
        overlays: overlaysOn[i], framesReceivedByOverlays: received[i],
        delivery: overlaysOn[i] ? received[i] / (due * (overlaysOn[i] / M)) : NaN,
        p50: percentile(lat, 50), p99: percentile(lat, 99), max: lat[lat.length - 1] ?? NaN, latencySamples: lat.length,
        loopP99: a.loopP99,
        logProblems: problems(node).length,
      };
    });
    const framesMade = perNode[0].framesMade;
    const out: Row = {
      run: label, nodes: n, F: f, M, rate: RATE, seconds,
      obsPerSec: sent / seconds, framesMadePerSec: framesMade / seconds, duePerSec: due / seconds,
      generatorCpuPct: ((gen.user + gen.system) / 1e6 / seconds) * 100, generatorLoopP99: genLoop.percentile(99) / 1e6,
      perNode,
      problems: nodes.flatMap((x, i) => problems(x).slice(0, 10).map((l) => `node-${String.fromCharCode(97 + i)}: ${l}`)),
    };
    if (r0 && r1) {
      const cmds: Record<string, { calls: number; usec: number; usecPerCall: number }> = {};
      for (const [k, v] of Object.entries(r1.cmds)) {
        const calls = v.calls - (r0.cmds[k]?.calls ?? 0), usec = v.usec - (r0.cmds[k]?.usec ?? 0);
        if (calls > 0) cmds[k] = { calls, usec, usecPerCall: usec / calls };
      }
      const inB = r1.inBytes - r0.inBytes, outB = r1.outBytes - r0.outBytes;
      const published = perNode.reduce((a, x) => a + x.redisBytesPublished, 0);
      const snapLen = Number(/:(\d+)/.exec(await cluster!.redis.command('HSTRLEN', `ods:snap:${matches[0].code}`, 'data'))?.[1] ?? NaN);
      out.redis = {
        cpuPct: ((r1.cpu - r0.cpu) / seconds) * 100,
        cpuMsPer1000Frames: framesMade ? ((r1.cpu - r0.cpu) * 1e6) / framesMade : NaN,
        netInBytesPerFrame: inB / framesMade, netOutBytesPerFrame: outB / framesMade,
        netInOutBytesPerFrame: (inB + outB) / framesMade,
        frameBusBytesPerFrame: published / framesMade,
        snapshotBytes: snapLen, scriptCallsPerFrame: (cmds.evalsha?.calls ?? 0) / framesMade,
        commands: cmds,
      };
    }
    return out;
  } finally {
    for (const m of matches) { m.observer?.close(); for (const o of m.overlays) o.close(); }
    if (cluster) await cluster.stop(); else await Promise.all(nodes.map((x) => x.stop('SIGTERM', 10_000)));
  }
}

// ---------------------------------------------------------------- takeover
/** The uninterrupted run: every record sent at once into a 1-process service; its final frame and messages applied. */
async function referenceRun(code: string): Promise<{ final: string; applied: number }> {
  const svc = await startServiceProcess({ AUTH_KEY: KEY, TRUST_REPLAY_TIMESTAMPS: 'true', INGEST_RATE_PER_SOCKET: '1000000', INGEST_BURST_PER_SOCKET: '1000000', LOG_LEVEL: 'warn' });
  try {
    const fe = await overlay(`http://127.0.0.1:${svc.ports.broadcast}`, code);
    const s = ioObserver(`http://127.0.0.1:${svc.ports.ingest}`);
    const ack = await ioLogon(s, 'obs_logon', replayLogon(replay, { key: KEY, groupCode: code }));
    if (!ack.ack.value) throw new Error(`reference logon refused: ${ack.ack.reason}`);
    for (let i = 0; i < replay.records.length; i++) {
      s.emit('obs_data', JSON.stringify({ ...replay.records[i], groupCode: code }));
      if (i % 200 === 0) await sleep(0);
    }
    await fe.waitFor((fr) => fr.roundPhase === 'game_end', 60_000);
    await sleep(300);
    const m = await scrapeMetrics(`http://127.0.0.1:${svc.ports.metrics}`);
    s.close();
    fe.socket.close();
    return { final: fe.raw[fe.raw.length - 1], applied: m.value('ods_messages_applied_total') };
  } finally {
    await svc.stop();
  }
}

async function snapshotEventNumber(cluster: Cluster, code: string): Promise<number> {
  const reply = await cluster.redis.command('HGET', `ods:snap:${code}`, 'data');
  const m = /stateVersion\\*":(\d+)/.exec(reply);
  return m ? Number(m[1]) : -1;
}

/** Leaf paths where two JSON values differ. */
function diffPaths(a: unknown, b: unknown, path = '', out: string[] = []): string[] {
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) diffPaths((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`, out);
  } else if (JSON.stringify(a) !== JSON.stringify(b)) out.push(`${path}: ${JSON.stringify(b)} (uninterrupted: ${JSON.stringify(a)})`);
  return out;
}

async function takeoverRun(ttl: number): Promise<Row> {
  const code = `KILL${String(ttl / 1000).replace('.', '')}`.slice(0, 6).padEnd(6, 'X');
  const reference = await referenceRun(code);
  const cluster = await startCluster(2, {
    ...BENCH_ENV, ...REDIS_DEFAULTS, REDIS_LEASE_TTL_MS: String(ttl), LOG_LEVEL: 'info', TRUST_REPLAY_TIMESTAMPS: 'true',
    // The bench sends the recording's first part and, after the takeover, its rest at once: not throttled.
    INGEST_RATE_PER_SOCKET: '1000000', INGEST_BURST_PER_SOCKET: '1000000',
  }, { inheritEnv: true });
  const [a, b] = cluster.nodes;
  const proxy = new FailoverProxy([a.ports.ingest, b.ports.ingest]);
  const url = await proxy.start();
  let s: Socket | null = null;
  try {
    const onB = await overlay(b.urls.broadcast, code);
    const arrivals: number[] = [];
    onB.socket.on('match_data', () => arrivals.push(Date.now()));
    s = ioObserver(url);
    await connected(s);
    const ack = await ioLogon(s, 'obs_logon', replayLogon(replay, { key: KEY, groupCode: code }));
    if (!ack.ack.value) throw new Error(`logon refused: ${ack.ack.reason}`);
    for (let i = 0; i < 100 && s.io.engine.transport.name !== 'websocket'; i++) await sleep(50);
    const records = replay.records;
    const emit = (i: number) => s!.emit('obs_data', JSON.stringify({ ...records[i], groupCode: code }));
    // The first ~40 % of the recording at once (rounds 1-7), then the game at --rate msg/s.
    const half = Math.floor(records.length * 0.4);
    for (let i = 0; i < half; i++) { emit(i); if (i % 200 === 0) await sleep(0); }
    await onB.waitFor(() => true, 10_000);
    await sleep(1500);
    let next = half;
    let killedAt = 0;
    let sentBeforeKill = 0;
    let intoDyingConnection = 0;
    let disconnectedAt = 0;
    let buffered = 0; // emitted while disconnected (socket.io-client buffers them)
    s.once('disconnect', () => { disconnectedAt = Date.now(); });
    let reconnectedAt = 0;
    s.io.on('reconnect', () => { reconnectedAt = Date.now(); });
    const paced = async (until: () => boolean) => {
      const t0 = Date.now();
      const from = next;
      while (!until() && next < records.length) {
        const dueAt = t0 + ((next - from) * 1000) / RATE;
        const wait = dueAt - Date.now();
        if (wait > 0) await sleep(wait);
        emit(next);
        if (killedAt === 0) sentBeforeKill = next + 1;
        else if (disconnectedAt === 0) intoDyingConnection++;
        else if (!s!.connected) buffered++;
        next++;
      }
    };
    const killAfter = Date.now() + 4000 + Math.random() * 1000; // not in step with the 1 s snapshots
    await paced(() => Date.now() >= killAfter);
    killedAt = Date.now();
    a.proc.kill('SIGKILL');
    await a.exited;
    const snapEvent = await snapshotEventNumber(cluster, code); // what B will adopt: A can write no more
    // The game goes on at its pace until B's overlay has a frame from the new owner, then 2 s more.
    const framesAtKill = arrivals.length;
    const firstAfter = () => arrivals.slice(framesAtKill).find((t) => t > killedAt + 50);
    const deadline = killedAt + ttl + 20_000;
    await paced(() => firstAfter() !== undefined || Date.now() > deadline);
    const firstFrame = firstAfter();
    const afterFirst = Date.now() + 2000;
    await paced(() => Date.now() >= afterFirst);
    // The rest at once.
    while (next < records.length) { const to = Math.min(next + 20, records.length); for (; next < to; next++) emit(next); await sleep(20); }
    let gameEnd = true;
    try { await onB.waitFor((fr) => fr.roundPhase === 'game_end', 60_000); } catch { gameEnd = false; }
    await sleep(2500); // B's next snapshot
    const finalEvent = await snapshotEventNumber(cluster, code);
    const final = onB.raw[onB.raw.length - 1];
    const adopted = logLines(b, 'match adopted from its snapshot');
    const adoptedAt = adopted.length ? Number(adopted[0].time) : NaN;
    const resumed = logLines(b, 'session resumed');
    const mB = await scrapeMetrics(b.urls.metrics!);
    const diffs = diffPaths(JSON.parse(reference.final), JSON.parse(final));
    const expectedEvent = 1 + reference.applied;
    // B ran nothing before the kill: what its shards applied is what came after the snapshot it adopted.
    const appliedOnB = mB.value('ods_messages_applied_total');
    const appliedAfterSnapshot = sentBeforeKill - (snapEvent - 1); // all records are accepted (the reference applied them all)
    return {
      ttlMs: ttl, code, records: records.length, killAtRecord: sentBeforeKill,
      killToDisconnectMs: disconnectedAt - killedAt, killToReconnectMs: reconnectedAt ? reconnectedAt - killedAt : NaN,
      killToAdoptedMs: adoptedAt - killedAt,
      killToFirstFrameMs: firstFrame ? firstFrame - killedAt : NaN,
      withinTtlPlus2s: firstFrame !== undefined && firstFrame - killedAt <= ttl + 2000,
      gameEndOnB: gameEnd,
      referenceApplied: reference.applied,
      finalIdentical: final === reference.final,
      finalDiffs: diffs.slice(0, 20), finalDiffCount: diffs.length,
      eventNumberExpected: expectedEvent, eventNumberFinal: finalEvent, appliedOnB,
      recordsLost: reference.applied - (snapEvent - 1) - appliedOnB,
      snapshotEventNumber: snapEvent,
      lostAfterSnapshot: appliedAfterSnapshot, intoDyingConnection, bufferedWhileDisconnected: buffered,
      bound: appliedAfterSnapshot + intoDyingConnection,
      sessionResumed: resumed.length > 0,
      forwardedOnB: mB.by('ods_cluster_forwarded_total', 'outcome'),
      adoptedOnB: mB.value('ods_cluster_events_total', { event: 'adopted' }),
      problemsB: problems(b).slice(0, 10),
    };
  } finally {
    s?.close();
    await proxy.close();
    await cluster.stop();
  }
}

// ---------------------------------------------------------------- run
const results: Row = { bench: 'cluster', name: NAME, machine: machine(), options: { M, F, RATE, DURATION, WARMUP, NODES, OWNER_PROBES, SAMPLE, TTLS } };
const runs: Row[] = [];
if (!TAKEOVER_ONLY) {
  if (NODES.includes(1)) runs.push(await steadyRun(1, 0));
  for (const n of NODES) {
    const r = await steadyRun(n, F);
    runs.push(r);
    jsonLine({ bench: 'cluster', ...r });
  }
  results.runs = runs;
}
const takeovers: Row[] = [];
if (TAKEOVER) {
  for (const ttl of TTLS) {
    log(`  takeover, REDIS_LEASE_TTL_MS=${ttl}\n`);
    const r = await takeoverRun(ttl);
    takeovers.push(r);
    jsonLine({ bench: 'cluster-takeover', ...r });
  }
  results.takeovers = takeovers;
}

// ---------------------------------------------------------------- unit costs and overheads
type PerNode = Record<string, number | string | Record<string, number>>;
const nodesOf = (r: Row) => r.perNode as PerNode[];
const base0 = runs.find((r) => r.nodes === 1 && r.F === 0);
const base1 = runs.find((r) => r.nodes === 1 && r.F === F);
const summary: Row[] = [];
if (base0 && base1) {
  const b0 = nodesOf(base0)[0], b1 = nodesOf(base1)[0];
  const ownerUs = (b0.cpuSeconds as number) * 1e6 / (b0.framesMade as number); // the owner's role alone, per frame
  // A delivery's cost: the F overlays' share of the 1-process run (CPU per second, less the owner role's).
  const deliveryUs = (((b1.cpuSeconds as number) / (base1.seconds as number)) - ((b0.cpuSeconds as number) / (base0.seconds as number))) * 1e6
    / (((b1.deliveries as number) / (base1.seconds as number)) - ((b0.deliveries as number) / (base0.seconds as number)));
  const single = { c1: (b1.cpuSeconds as number) * 1e6 / (b1.framesMade as number), ownerUs, deliveryUs };
  results.units = single;
  for (const r of runs) {
    const ns = nodesOf(r);
    for (const x of ns) {
      const row: Row = {
        run: r.run, node: x.node, role: r.nodes === 1 ? (r.F === 0 ? 'owner only' : 'owner + overlays') : x.role,
        cpuPct: x.cpuPct, usPerDelivered: x.usPerDelivered,
        usPerFrameMade: x.role === 'owner' ? x.usPerFrameMade : NaN,
        usPerFrameRecv: x.usPerFrameReceived,
        overheadUs: NaN, p50: x.p50, p99: x.p99, delivery: x.delivery,
        'B/frame pub': (x.redisFramesPublished as number) ? (x.redisBytesPublished as number) / (x.framesMade as number) : NaN,
        gaps: x.gaps, noBase: x.noBase,
      };
      if (r.nodes !== 1) {
        if (x.role === 'owner') row.overheadUs = (x.usPerFrameMade as number) - ownerUs;
        else row.overheadUs = (((x.cpuSeconds as number) * 1e6) - deliveryUs * (x.deliveries as number)) / (x.redisFramesReceived as number);
        x.overheadUsPerFrame = row.overheadUs as number;
      }
      summary.push(row);
    }
  }
  // ---- projection
  const redisRuns = runs.filter((r) => (r.nodes as number) > 1 && r.redis);
  const oPub = mean(redisRuns.map((r) => nodesOf(r)[0].overheadUsPerFrame as number));
  const oRecv = mean(redisRuns.flatMap((r) => nodesOf(r).slice(1).map((x) => x.overheadUsPerFrame as number)));
  // Redis µs per frame as a function of k, the nodes that receive each frame: fit r = r0 + r1 k from the runs.
  const pts = redisRuns.map((r) => [Math.min(F, (r.nodes as number) - 1), ((r.redis as Row).cpuMsPer1000Frames as number)] as [number, number]);
  let r0 = pts[0]?.[1] ?? NaN, r1 = 0;
  if (pts.length >= 2 && pts[pts.length - 1][0] !== pts[0][0]) {
    r1 = (pts[pts.length - 1][1] - pts[0][1]) / (pts[pts.length - 1][0] - pts[0][0]);
    r0 = pts[0][1] - r1 * pts[0][0];
  }
  // A falling fit is noise (Redis cannot get cheaper per frame with more subscribers): the dearest run, flat.
  if (r1 < 0) { r0 = Math.max(...pts.map((p) => p[1])); r1 = 0; }
  const M1 = 200; // docs/benchmarks.md, bench:broadcast ramp at 20 msg/s, F=2: largest M held on this machine
  const c1 = single.c1;
  const projection = [1, 2, 3, 4, 8, 16].map((N) => {
    const k = N === 1 ? 0 : Math.min(F, N - 1);
    const perMatchFrame = c1 + (N === 1 ? 0 : oPub + k * oRecv);
    const perNode = (M1 * c1) / perMatchFrame;
    const redisUsPerFrame = N === 1 ? 0 : r0 + r1 * k; // ms per 1,000 frames = µs per frame
    const redisMax = N === 1 ? Infinity : 1e6 / (FPS * redisUsPerFrame);
    const total = Math.min(N * perNode, redisMax);
    return { N, k, perMatchFrameUs: perMatchFrame, matchesPerNode: perNode, clusterMatches: N * perNode, redisLimit: redisMax, held: total, redisCorePct: N === 1 ? 0 : (total * FPS * redisUsPerFrame) / 1e4 };
  });
  results.projection = { formula: 'matches(N) = min(N × M1 × c1 / (c1 + o_pub + k × o_recv), 1e6 / (10 × r(k))), k = min(F, N−1), r(k) = r0 + r1 k', M1, c1, oPub, oRecv, r0, r1, rows: projection };
}
results.summary = summary;
function mean(xs: number[]): number { const v = xs.filter((x) => Number.isFinite(x)); return v.reduce((a, b) => a + b, 0) / (v.length || 1); }

// ---------------------------------------------------------------- print
if (summary.length) process.stdout.write('\n' + table(summary, ['run', 'node', 'role', 'cpuPct', 'usPerDelivered', 'usPerFrameMade', 'usPerFrameRecv', 'overheadUs', 'p50', 'p99', 'delivery', 'B/frame pub', 'gaps', 'noBase']) + '\n');
const redisRows = runs.filter((r) => r.redis).map((r) => ({ run: r.run, ...(r.redis as Row), commands: undefined }));
if (redisRows.length) process.stdout.write('\nRedis, per frame published by the owner:\n' + table(redisRows, ['run', 'cpuPct', 'cpuMsPer1000Frames', 'frameBusBytesPerFrame', 'netInBytesPerFrame', 'netOutBytesPerFrame', 'netInOutBytesPerFrame', 'snapshotBytes', 'scriptCallsPerFrame']) + '\n');
if (takeovers.length) process.stdout.write('\nTakeover after kill -9 (2 nodes):\n' + table(takeovers, ['ttlMs', 'killAtRecord', 'killToDisconnectMs', 'killToReconnectMs', 'killToAdoptedMs', 'killToFirstFrameMs', 'withinTtlPlus2s', 'finalIdentical', 'finalDiffCount', 'recordsLost', 'lostAfterSnapshot', 'intoDyingConnection', 'bound']) + '\n');
if (results.projection) {
  const p = results.projection as { formula: string; rows: Row[]; c1: number; oPub: number; oRecv: number; r0: number; r1: number; M1: number };
  process.stdout.write(`\nProjection: ${p.formula}\n  M1 = ${p.M1} (bench:broadcast ramp, 20 msg/s, F=2), c1 = ${p.c1.toFixed(0)} µs, o_pub = ${p.oPub.toFixed(1)} µs, o_recv = ${p.oRecv.toFixed(1)} µs, r(k) = ${p.r0.toFixed(1)} + ${p.r1.toFixed(1)} k µs\n`);
  process.stdout.write(table(p.rows, ['N', 'k', 'perMatchFrameUs', 'matchesPerNode', 'clusterMatches', 'redisLimit', 'held', 'redisCorePct']) + '\n');
}
const problemsAll = runs.flatMap((r) => r.problems as string[]);
if (problemsAll.length) process.stdout.write(`\nwarnings/errors in node logs (first ${problemsAll.length}):\n${problemsAll.join('\n')}\n`);
process.stdout.write(`results: ${writeResults(NAME, results)}\n`);
process.exit(0);
