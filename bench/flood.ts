// bench:flood — one flooding observer beside M normal matches (issue: hardening).
//
//   npm run bench:flood -- [--matches 50] [--rate 20] [--flood 20000] [--duration 15] [--warmup 3] [--catchup 3700]
//
// Starts the built service (dist/) in its own process four times and runs the same load each time:
// M matches, each with one observer sending the recorded match's game messages in order at `rate`
// msg/s and one overlay; latency is measured from an obs_data send to the first frame
// showing it (a probe value in a scoreboard row's money), on every overlay. Phases:
//   baseline   no flooder;
//   flood      plus one authenticated observer sending `flood` msg/s of valid scoreboard rows to its
//              own match, with the default per-socket budget (200 msg/s, burst 100);
//   no-budget  the same flood with the budget lifted (INGEST_RATE_PER_SOCKET=1e6): what the budget buys;
//   catch-up   plus one authenticated observer sending `catchup` valid scoreboard rows at once when the
//              measurement starts, as a client flushes what it buffered during an outage (default: the
//              bucket and the backlog, 100 + 3,600): none may be shed; how long until none waits.
// Prints one JSON line per phase, a table, and writes bench/results/flood.json. The bar is the
// broadcast benchmark's: p99 latency ≤ 250 ms with ≥ 95% of the due frames delivered.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { EioClient, eventPayload } from './lib/eio-client.js';
import { consumeProbes, PROBE_BASE, withProbe } from './lib/probes.js';
import { jsonLine, machine, percentile, table, writeResults } from './lib/report.js';
import { startServiceProcess } from './lib/service.js';

import { recordedMatch } from '#built/tools/recorded-match.js';
import { opt } from './lib/args.js';

const M = Number(opt('matches', '50'));
const RATE = Number(opt('rate', '20'));
const FLOOD = Number(opt('flood', '20000'));
const DURATION = Number(opt('duration', '15')) * 1000;
const WARMUP = Number(opt('warmup', '3')) * 1000;
const CATCHUP = Number(opt('catchup', '3700'));

const replay = recordedMatch();
const firstGame = replay.records.findIndex((r) => r.type === 'match_start');
const lobby = replay.records.slice(0, firstGame);
const game = replay.records.slice(firstGame + 1).filter((r) => !(r.type === 'round_info' && (r.data as { roundPhase?: string }).roundPhase === 'game_end'));
const floodRow = replay.records.find((r) => r.type === 'scoreboard')!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function observer(url: string, code: string): Promise<EioClient> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`observer ${code}: no logon ack`)), 30_000);
    const c: EioClient = new EioClient({
      url,
      onOpen: () => c.emit('obs_logon', JSON.stringify({ type: 'authenticate', clientVersion: '0.3.3', obsName: 'Bench', key: 'bench-key', groupCode: code, groupSecret: '', leftTeam: replay.header.leftTeam, rightTeam: replay.header.rightTeam })),
      onEvent: (event, text) => {
        if (event !== 'obs_logon_ack') return;
        clearTimeout(timer);
        const ack = JSON.parse(eventPayload(text)) as { value: boolean; reason: string };
        if (ack.value) resolve(c); else reject(new Error(`logon refused: ${ack.reason}`));
      },
    });
  });
}

async function metric(port: number, series: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

type Phase = 'baseline' | 'flood' | 'no-budget' | 'catch-up';

async function run(phase: Phase): Promise<Record<string, unknown>> {
  const svc = await startServiceProcess({ LOG_LEVEL: 'error', ...(phase === 'no-budget' ? { INGEST_RATE_PER_SOCKET: '1000000', INGEST_BURST_PER_SOCKET: '1000000' } : {}) });
  const metricsPort = (svc.ports as unknown as { metrics: number }).metrics;
  const ingest = `http://127.0.0.1:${svc.ports.ingest}`;
  const broadcast = `http://127.0.0.1:${svc.ports.broadcast}`;
  const clients: EioClient[] = [];
  const latencies: number[] = [];
  let measuring = false;
  let framesReceived = 0;
  let due = 0;
  try {
    const matches = await Promise.all(Array.from({ length: M }, async (_, i) => {
      const code = 'N' + i.toString(36).toUpperCase().padStart(5, '0');
      const obs = await observer(ingest, code);
      clients.push(obs);
      for (const r of lobby) obs.emit('obs_data', JSON.stringify({ ...r, groupCode: code }));
      const m = { code, obs, next: 0, sent: 0, origin: 0, probe: PROBE_BASE, sentAt: new Map<number, number>(), lastFrameAt: -Infinity, pending: false };
      const fe: EioClient = new EioClient({
        url: broadcast,
        onOpen: () => fe.emit('logon', JSON.stringify({ groupCode: code })),
        onEvent: (event, text) => {
          if (event !== 'match_data') return;
          if (measuring) framesReceived++;
          consumeProbes(text, m.sentAt, measuring, latencies);
        },
      });
      clients.push(fe);
      return m;
    }));
    let flooder: EioClient | null = null;
    if (phase !== 'baseline') {
      // (In the catch-up phase the same socket sends one burst instead of a flood.)
      flooder = await observer(ingest, 'FLOOD0');
      clients.push(flooder);
      for (const r of lobby) flooder.emit('obs_data', JSON.stringify({ ...r, groupCode: 'FLOOD0' }));
    }
    await sleep(1000);

    const start = Date.now();
    matches.forEach((m, i) => { m.origin = start + (i * 1000) / M; });
    let floodSent = 0;
    let floodMoney = 0;
    const feed = setInterval(() => {
      const now = Date.now();
      for (const m of matches) {
        while (m.origin + (m.sent * 1000) / RATE <= now) {
          const rec = game[m.next];
          const data = withProbe(m, rec.type, rec.data, now);
          m.obs.emit('obs_data', JSON.stringify({ obsName: 'Bench', groupCode: m.code, type: rec.type, data }));
          // Frames due by the service's rule: at most one per match per 100 ms, on the leading
          // edge, a pending change going out once the 100 ms have passed (as bench/broadcast.ts).
          if (measuring) {
            if (m.pending && now >= m.lastFrameAt + 100) { due++; m.lastFrameAt += 100; m.pending = false; }
            if (now >= m.lastFrameAt + 100) { due++; m.lastFrameAt = now; } else m.pending = true;
          }
          m.next = (m.next + 1) % game.length;
          m.sent++;
        }
        if (m.sentAt.size > 2000) m.sentAt.clear();
      }
      if (flooder && phase !== 'catch-up') {
        const target = Math.floor(((now - start) * FLOOD) / 1000);
        for (; floodSent < target; floodSent++) {
          floodMoney = (floodMoney + 1) % 9000;
          flooder.emit('obs_data', JSON.stringify({ obsName: 'Flood', groupCode: 'FLOOD0', type: 'scoreboard', data: { ...(floodRow.data as object), money: floodMoney } }));
        }
      }
    }, 10);

    await sleep(WARMUP);
    await svc.stats();
    const gen = monitorEventLoopDelay({ resolution: 10 });
    gen.enable();
    const received0 = await metric(metricsPort, 'ods_messages_received_total{event="obs_data"}');
    const shed0 = await metric(metricsPort, 'ods_messages_dropped_total{reason="rate_limited"}');
    const floodSent0 = floodSent;
    const cpu0 = svc.cpuSeconds();
    const t0 = Date.now();
    measuring = true;
    let caughtUp: Promise<number> = Promise.resolve(NaN);
    if (phase === 'catch-up' && flooder) {
      const sender = flooder;
      for (let i = 0; i < CATCHUP; i++) sender.emit('obs_data', JSON.stringify({ obsName: 'Flood', groupCode: 'FLOOD0', type: 'scoreboard', data: { ...(floodRow.data as object), money: i % 9000 } }));
      // Seconds until none of them waits any more: the backlog seen non-empty, then empty (polled every 100 ms, at most 60 s).
      caughtUp = (async () => {
        let seen = false;
        while (Date.now() - t0 < 60_000) {
          const waiting = await metric(metricsPort, 'ods_ingest_backlog_messages');
          if (waiting > 0) seen = true;
          else if (seen) return (Date.now() - t0) / 1000;
          await sleep(100);
        }
        return NaN;
      })();
    }
    await sleep(DURATION);
    measuring = false;
    const seconds = (Date.now() - t0) / 1000;
    const cpu = svc.cpuSeconds() - cpu0;
    const host = await svc.stats();
    clearInterval(feed);
    due += matches.filter((m) => m.pending).length;
    const received = (await metric(metricsPort, 'ods_messages_received_total{event="obs_data"}')) - received0;
    const shed = (await metric(metricsPort, 'ods_messages_dropped_total{reason="rate_limited"}')) - shed0;
    const backlogAtEnd = await metric(metricsPort, 'ods_ingest_backlog_messages');
    const catchUpSeconds = await caughtUp;
    latencies.sort((a, b) => a - b);
    const floodAttempted = (floodSent - floodSent0) / seconds;
    return {
      phase, M, rate: RATE, flood: phase === 'flood' || phase === 'no-budget' ? FLOOD : 0,
      normalMsgPerSec: M * RATE,
      floodSentPerSec: floodAttempted,
      floodAcceptedPerSec: phase === 'flood' || phase === 'no-budget' ? (received - M * RATE * seconds - shed) / seconds : 0,
      shedPerSec: shed / seconds,
      backlogAtEnd,
      catchUpSent: phase === 'catch-up' ? CATCHUP : 0,
      catchUpShed: phase === 'catch-up' ? shed : 0,
      catchUpSeconds,
      delivery: due ? framesReceived / due : 0,
      p50: percentile(latencies, 50), p95: percentile(latencies, 95), p99: percentile(latencies, 99), max: latencies[latencies.length - 1] ?? NaN,
      samples: latencies.length,
      cpuPct: (cpu / seconds) * 100,
      loopP99: host.loop.p99,
      rssMB: svc.rssBytes() / 2 ** 20,
      generatorLoopP99: gen.percentile(99) / 1e6,
    };
  } finally {
    for (const c of clients) c.close();
    await svc.stop();
  }
}

const results: Record<string, unknown>[] = [];
for (const phase of ['baseline', 'flood', 'no-budget', 'catch-up'] as Phase[]) {
  const extra = phase === 'baseline' ? '' : phase === 'catch-up' ? `, one observer sending ${CATCHUP} at once` : `, one flooder at ${FLOOD} msg/s`;
  process.stderr.write(`${phase}: ${M} matches at ${RATE} msg/s${extra}...\n`);
  const r = await run(phase);
  results.push(r);
  jsonLine({ bench: 'flood', ...r });
}
process.stdout.write('\n' + table(results, ['phase', 'M', 'normalMsgPerSec', 'floodSentPerSec', 'floodAcceptedPerSec', 'shedPerSec', 'backlogAtEnd', 'catchUpShed', 'catchUpSeconds', 'delivery', 'p50', 'p95', 'p99', 'max', 'cpuPct', 'loopP99', 'rssMB']) + '\n');
const held = (r: Record<string, unknown>) => (r.delivery as number) >= 0.95 && (r.p99 as number) <= 250;
process.stdout.write(`bar (p99 ≤ 250 ms, delivery ≥ 0.95): ${results.map((r) => `${r.phase} ${held(r) ? 'held' : 'missed'}`).join(', ')}\n`);
process.stdout.write(`results: ${writeResults('flood', { bench: 'flood', machine: machine(), options: { M, RATE, FLOOD, DURATION, WARMUP, CATCHUP }, results })}\n`);
