// A real Redis failover setup for the tests: a redis-server primary, one replica and three
// redis-sentinel processes (Debian's packages; `.ci/run` installs them), all on free loopback TCP
// ports (replication and Sentinel speak TCP), persistence off, in one temporary directory. The
// Sentinels monitor the primary as `mymaster` with quorum 2 and decide within about a second
// (down-after-milliseconds 1000); their INFO and hello periods are shortened (1 s, 0.5 s). `kill(i)` is a crash (SIGKILL); `restart(i)` starts that server
// again on its port with its first arguments (a primary comes back as a primary, empty: the
// Sentinels turn it into a replica of the new one). A plain module: no vitest, so tsx runs it too.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePorts } from './free-ports.js';
import { REDIS_SERVER } from './redis-server.js';
import { rawCommand } from './redis-raw.js';
import { pollUntil } from './waits.js';

export const REDIS_SENTINEL = process.env.REDIS_SENTINEL_BIN ?? 'redis-sentinel';
export const MASTER_NAME = 'mymaster';

/** Whether redis-sentinel can be run here. */
export function redisSentinelAvailable(): boolean {
  return spawnSync(REDIS_SENTINEL, ['--version'], { stdio: 'ignore' }).status === 0;
}

export interface SentinelSetup {
  /** Ports of the two data servers: [0] the first primary, [1] its replica. */
  servers: number[];
  sentinels: number[];
  /** REDIS_SENTINELS for the nodes. */
  sentinelList: string;
  /** SIGKILL of data server i (0 or 1). */
  kill(i: number): Promise<void>;
  /** Starts data server i again on its port, with its first arguments. */
  restart(i: number): Promise<void>;
  /** One command to the server or Sentinel on `port` (raw RESP); the reply's text. */
  command(port: number, ...args: string[]): Promise<string>;
  /** The port of the primary the Sentinels name now (asked of the first one that answers). */
  primaryPort(): Promise<number>;
  /** `role:` and `master_port:`/`master_link_status:` of INFO replication on a data server. */
  replication(port: number): Promise<Record<string, string>>;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
process.once('exit', () => { for (const p of running) p.kill('SIGKILL'); });

export async function startSentinelSetup(): Promise<SentinelSetup> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ods-sentinel-'));
  const ports = await freePorts(5);
  const servers = ports.slice(0, 2);
  const sentinels = ports.slice(2);
  const procs: (ChildProcess | null)[] = [];
  const serverArgs = (i: number) => [
    '--port', String(servers[i]), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no',
    '--dir', fs.mkdtempSync(path.join(dir, `server${i}-`)), '--daemonize', 'no', '--loglevel', 'warning',
    ...(i === 1 ? ['--replicaof', '127.0.0.1', String(servers[0])] : []),
  ];
  const launch = async (bin: string, args: string[], port: number): Promise<ChildProcess> => {
    const p = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(p);
    p.once('exit', () => running.delete(p));
    let output = '';
    p.stdout!.on('data', (c: Buffer) => { output += c.toString(); });
    p.stderr!.on('data', (c: Buffer) => { output += c.toString(); });
    await pollUntil(async () => {
      if (p.exitCode !== null || p.signalCode !== null) throw new Error(`${bin} exited (${p.exitCode})`);
      return (await rawCommand(port, ['PING']).catch(() => '')).startsWith('+PONG');
    }, `${bin} on port ${port} answering PING`, 20_000).catch((err: Error) => {
      throw new Error(`${err.message}:\n${output}`);
    });
    return p;
  };
  const stopAll = async () => {
    await Promise.all(procs.map(async (p) => {
      if (!p || p.exitCode !== null || p.signalCode !== null) return;
      const exited = new Promise((r) => p.once('exit', r));
      p.kill('SIGKILL');
      await exited;
    }));
  };
  try {
    procs[0] = await launch(REDIS_SERVER, serverArgs(0), servers[0]);
    procs[1] = await launch(REDIS_SERVER, serverArgs(1), servers[1]);
    for (let k = 0; k < sentinels.length; k++) {
      // Sentinel rewrites its configuration file: one writable file each.
      const conf = path.join(dir, `sentinel${k}.conf`);
      fs.writeFileSync(conf, [
        `port ${sentinels[k]}`, 'bind 127.0.0.1', `dir ${dir}`, 'daemonize no', 'loglevel warning',
        `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${servers[0]} 2`,
        `sentinel down-after-milliseconds ${MASTER_NAME} 1000`,
        `sentinel failover-timeout ${MASTER_NAME} 5000`,
        `sentinel parallel-syncs ${MASTER_NAME} 1`,
      ].join('\n') + '\n');
      procs[2 + k] = await launch(REDIS_SENTINEL, [conf], sentinels[k]);
      // Sentinel's own periods, shortened (Redis 7's SENTINEL DEBUG): INFO to each server every second
      // instead of 10, hellos every 0.5 s instead of 2. A restarted old primary is made a replica once
      // it has been up 4 hello periods and the next INFO shows it (2–3 s instead of ~16), and the
      // Sentinels find each other sooner. Detection and promotion keep their pace (down-after, pings).
      const tuned = await rawCommand(sentinels[k], ['SENTINEL', 'DEBUG', 'info-period', '1000', 'publish-period', '500']);
      if (!tuned.startsWith('+OK')) throw new Error(`SENTINEL DEBUG refused: ${tuned}`);
    }
  } catch (err) {
    await stopAll();
    throw err;
  }
  const setup: SentinelSetup = {
    servers, sentinels,
    sentinelList: sentinels.map((p) => `127.0.0.1:${p}`).join(','),
    async kill(i) {
      const p = procs[i];
      if (!p || p.exitCode !== null || p.signalCode !== null) return;
      const exited = new Promise((r) => p.once('exit', r));
      p.kill('SIGKILL');
      await exited;
    },
    async restart(i) {
      procs[i] = await launch(REDIS_SERVER, serverArgs(i).filter((_, k, a) => i !== 1 || k < a.length - 3), servers[i]);
    },
    command: (port, ...args) => rawCommand(port, args),
    async primaryPort() {
      for (const port of sentinels) {
        const reply = await rawCommand(port, ['SENTINEL', 'get-master-addr-by-name', MASTER_NAME]).catch(() => '');
        const m = /\r\n(\d+)\r\n$/.exec(reply);
        if (m) return Number(m[1]);
      }
      throw new Error('no Sentinel answered');
    },
    async replication(port) {
      const text = await rawCommand(port, ['INFO', 'replication']);
      return Object.fromEntries(text.split('\r\n').filter((l) => l.includes(':')).map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1)]));
    },
    stop: stopAll,
  };
  // Ready once the replica is in sync and every Sentinel knows the primary, its replica and the other Sentinels.
  try {
    await pollUntil(async () => {
      const link = (await setup.replication(servers[1]).catch(() => ({} as Record<string, string>))).master_link_status;
      const known = await Promise.all(sentinels.map(async (port) => {
        const info = await rawCommand(port, ['INFO', 'sentinel']).catch(() => '');
        return /status=ok,address=127\.0\.0\.1:\d+,slaves=1,sentinels=3/.test(info);
      }));
      return link === 'up' && known.every(Boolean);
    }, 'the Sentinel setup settling', 30_000, 100);
  } catch (err) {
    await stopAll();
    throw err;
  }
  return setup;
}
