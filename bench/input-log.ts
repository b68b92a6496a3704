// What the input log (docs/reliability.md, "The input log") costs the main thread per input: the
// recorded match's 2,763 observer records appended through each adapter as MatchInputs does, flushed
// every `--per-flush` inputs (the pool flushes before each batch it posts; 1 = a batch per message,
// the worst case), `--rounds` times. STATE_DIR: the file adapter in a temporary directory. Redis: the
// stream adapter on a redis-server started here (its own process: only the node's side is counted).
// CPU is the process's user+system time over the appends and flushes; with Redis, then the wait until
// the last write is in the stream (not CPU of this process, shown apart as wall time).
//
//   npx tsc -p tsconfig.json && npx tsx bench/input-log.ts [--rounds 5] [--per-flush 1]
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { StateDirInputLog } from '../src/main/matches/adapters/state-dir/input-log.js';
import { RedisConnection } from '../src/main/redis/connection.js';
import { RedisInputLog } from '../src/main/matches/adapters/redis/input-log.js';
import type { InputLog } from '../src/main/matches/input-log.js';
import { startRedisServer } from '../test/helpers/redis-server.js';
import { tempDir } from '../test/helpers/service.js';
import { recordedMatch } from '#built/tools/recorded-match.js';
import { jsonLine, machine, table } from './lib/report.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' }, 'per-flush': { type: 'string', default: '1' } } });
const rounds = Number(values.rounds);
const perFlush = Math.max(1, Number(values['per-flush']));
const silent = pino({ level: 'silent' });
const replay = recordedMatch();
const raws = replay.records.map((r) => JSON.stringify(r));
const bytes = raws.reduce((n, r) => n + r.length, 0);

/**
 * Appends every record once per round under a fresh code; CPU µs per input up to `settled` (the
 * replies handled), wall time to the same point; `landed` then checks the last input is stored.
 */
async function measure(name: string, log: InputLog, settled: () => Promise<void>, landed: (code: string, n: number) => Promise<void>) {
  const cpu: number[] = [];
  const wall: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const code = `BENCH${round}`;
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    for (let i = 0; i < raws.length; i++) {
      log.append(code, 1, { n: i + 1, now: 1_700_000_000_000 + i, kind: 'obs', raw: raws[i] });
      if ((i + 1) % perFlush === 0) log.flush();
    }
    log.flush();
    await settled();
    const c = process.cpuUsage(c0);
    wall.push(performance.now() - t0);
    await landed(code, raws.length);
    cpu.push((c.user + c.system) / raws.length);
    log.drop(code, 1);
  }
  cpu.sort((a, b) => a - b);
  return { adapter: name, inputs: raws.length, perFlush, rounds, cpuUsPerInputMedian: +cpu[Math.floor(cpu.length / 2)].toFixed(2), cpuUsPerInputMin: +cpu[0].toFixed(2), wallMsPerRoundMedian: Math.round(wall.sort((a, b) => a - b)[Math.floor(wall.length / 2)]), avgRawBytes: Math.round(bytes / raws.length) };
}

const rows = [];
const files = new StateDirInputLog(path.join(tempDir(), 'inputs'), silent);
rows.push(await measure('STATE_DIR', files, async () => {}, async () => {}));
files.close();

const server = await startRedisServer();
try {
  const conn = await RedisConnection.open({ url: server.url, prefix: 'bench:', nodeId: 'bench', timeoutMs: 5000, probeIntervalMs: 60_000, log: silent });
  const redis = new RedisInputLog(conn, { log: silent });
  const reader = new RedisInputLog(conn, { log: silent });
  const settled = async () => {
    await conn.cmd.ping();
    await new Promise((resolve) => setImmediate(resolve));
  };
  rows.push(await measure('Redis', redis, settled, async (code, n) => {
    const got = await reader.since(code, 1, 1, n - 1);
    if (got.length !== 1) throw new Error(`input ${n} of ${code} not in the stream after the replies`);
  }));
  redis.close();
  conn.close();
} finally {
  await server.stop();
}
for (const row of rows) jsonLine({ bench: 'input-log', ...row, load1: os.loadavg()[0], machine: machine() });
console.log(table(rows, ['adapter', 'inputs', 'perFlush', 'rounds', 'cpuUsPerInputMedian', 'cpuUsPerInputMin', 'wallMsPerRoundMedian', 'avgRawBytes']));
