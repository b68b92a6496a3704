// bench:ingest — the cost of one observer message, without overlays: M matches, each with one
// observer (raw Engine.IO, bench/lib/eio-client.ts) sending the recorded match's game messages in
// order at a fixed rate, as the Spectra observer does (`42["obs_data","<JSON text>"]`, or with
// `--payload object` the payload as an object). No overlay is connected; the shards still make
// their frames (the main thread keeps each match's latest).
//
//   npx tsx bench/ingest.ts [--matches 50,200] [--rate 20] [--duration 15] [--warmup 5]
//                           [--payload string|object] [--tree /work/wt-base]
//
// `--tree DIR` runs DIR's build (`DIR/dist/main/index.js`) with this script: the same load against
// a "before" checkout. Per step: observer messages/s sent and applied (the shard's count), server
// CPU (all threads, /proc) per applied message, and split by thread: the main thread (uWS, Engine.IO,
// Socket.IO, our handlers, the hand-off) and the shard threads (parse, validate, apply, frames).
import fs from 'node:fs';
import path from 'node:path';
import { loggedOnObserver, type EioClient } from './lib/eio-client.js';
import { jsonLine, machine, table, writeResults } from './lib/report.js';
import { startServiceProcess } from './lib/service.js';
import { scrapeMetrics } from '../test/helpers/metrics.js';

import { recordedMatch } from '#built/tools/recorded-match.js';
import { opt } from './lib/args.js';

const STEPS = opt('matches', '50,200').split(',').map(Number);
const RATE = Number(opt('rate', '20'));
const DURATION = Number(opt('duration', '15')) * 1000;
const WARMUP = Number(opt('warmup', '5')) * 1000;
const PAYLOAD = opt('payload', 'string') === 'object' ? 'object' : 'string';
const TREE = opt('tree', '');
const ENTRY = TREE ? path.resolve(TREE, 'dist/main/index.js') : undefined;
const NAME = opt('name', `ingest-${RATE}`);

const replay = recordedMatch();
const firstGame = replay.records.findIndex((r) => r.type === 'match_start');
const lobby = replay.records.slice(0, firstGame);
const game = replay.records.slice(firstGame + 1).filter((r) => !(r.type === 'round_info' && (r.data as { roundPhase?: string }).roundPhase === 'game_end'));

// The wire text of every game message, once, with a placeholder group code (codes have one length).
const PLACEHOLDER = 'ZZZZZZ';
const wireOf = (type: unknown, data: unknown): string => {
  const envelope = { obsName: 'Bench', groupCode: PLACEHOLDER, type, data };
  return '42' + JSON.stringify(['obs_data', PAYLOAD === 'string' ? JSON.stringify(envelope) : envelope]);
};
const gameWires = game.map((r) => wireOf(r.type, r.data));

/** CPU seconds of each thread of `pid`: the main thread (tid = pid) and the others. */
function threadCpu(pid: number): { main: number; others: number } {
  let main = 0;
  let others = 0;
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try { stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'); } catch { continue; }
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const s = (Number(f[11]) + Number(f[12])) / 100;
    if (Number(tid) === pid) main += s; else others += s;
  }
  return { main, others };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function runStep(M: number): Promise<Record<string, unknown>> {
  const svc = await startServiceProcess({ COMPRESSION: 'true', LOG_LEVEL: 'warn' }, ENTRY);
  const pid = svc.child.pid!;
  const url = `http://127.0.0.1:${svc.ports.ingest}`;
  const metricsUrl = `http://127.0.0.1:${svc.ports.metrics}`;
  const observers: { code: string; ws: EioClient; wires: string[]; origin: number; sent: number }[] = [];
  try {
    for (let base = 0; base < M; base += 50) {
      await Promise.all(Array.from({ length: Math.min(50, M - base) }, async (_, k) => {
        const code = 'I' + (base + k).toString(36).toUpperCase().padStart(5, '0');
        const ws = await loggedOnObserver(url, code, 'bench-key', replay.header);
        for (const r of lobby) ws.emit('obs_data', JSON.stringify({ ...r, groupCode: code }));
        observers.push({ code, ws, wires: gameWires.map((w) => w.replace(PLACEHOLDER, code)), origin: 0, sent: 0 });
      }));
    }
    const start = Date.now();
    observers.forEach((o, i) => { o.origin = start + (i * 1000) / M; });
    let sent = 0;
    let counting = false;
    const feed = setInterval(() => {
      const now = Date.now();
      for (const o of observers) {
        while (o.origin + (o.sent * 1000) / RATE <= now) {
          o.ws.ws.send(o.wires[o.sent % o.wires.length]);
          o.sent++;
          if (counting) sent++;
        }
      }
    }, 10);
    // Connecting and the lobby data of M matches is a burst: the measurement starts once it is absorbed.
    await sleep(Math.max(WARMUP, M * 40));
    const applied = async () => (await scrapeMetrics(metricsUrl)).value('ods_messages_applied_total');
    const a0 = await applied();
    const cpu0 = threadCpu(pid);
    const t0 = Date.now();
    counting = true;
    await sleep(DURATION);
    counting = false;
    const cpu1 = threadCpu(pid);
    const t1 = Date.now();
    const a1 = await applied();
    clearInterval(feed);
    const seconds = (t1 - t0) / 1000;
    const main = cpu1.main - cpu0.main;
    const others = cpu1.others - cpu0.others;
    // Per message the service took in over the window (its shards' count), so that a service still
    // catching up with the warm-up, or falling behind, is not credited with messages it did not handle.
    const perMsg = (s: number) => (s * 1e6) / (a1 - a0);
    return {
      M, rate: RATE, payload: PAYLOAD, tree: TREE || '.',
      sentPerSec: sent / seconds, appliedPerSec: (a1 - a0) / seconds,
      cpuPct: ((main + others) / seconds) * 100,
      usPerMsg: perMsg(main + others), mainUsPerMsg: perMsg(main), otherUsPerMsg: perMsg(others),
      rssMB: svc.rssBytes() / 2 ** 20,
    };
  } finally {
    // Warnings and errors of the service (a shard restarted, a stall...) are part of the result.
    for (const line of svc.out.filter((l) => /"level":(40|50|60)|stderr:/.test(l)).slice(0, 20)) process.stderr.write(`service: ${line}\n`);
    for (const o of observers) o.ws.close();
    await svc.stop();
  }
}

const results: Record<string, unknown>[] = [];
for (const M of STEPS) {
  const r = await runStep(M);
  results.push(r);
  jsonLine({ bench: 'ingest', ...r });
}
process.stdout.write('\n' + table(results, ['M', 'rate', 'payload', 'sentPerSec', 'appliedPerSec', 'cpuPct', 'usPerMsg', 'mainUsPerMsg', 'otherUsPerMsg', 'rssMB']) + '\n');
process.stdout.write(`results: ${writeResults(NAME, { bench: 'ingest', machine: machine(), options: { STEPS, RATE, DURATION, WARMUP, PAYLOAD, TREE }, results })}\n`);
process.exit(0);
