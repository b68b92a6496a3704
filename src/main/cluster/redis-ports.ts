// Scale-out: the ports on Redis (REDIS_URL set). Opens the connection (the start fails with a
// clear message when Redis does not answer within REDIS_TIMEOUT_MS) and builds every port's Redis
// adapter on it, plus what only a shared deployment has: match ownership and the owners' inboxes.
import crypto from 'node:crypto';
import os from 'node:os';
import { RedisConnection } from '../adapters/redis/connection.js';
import { RedisControlBus } from '../adapters/redis/control-bus.js';
import { RedisFrameBus } from '../adapters/redis/frame-bus.js';
import { RedisMatchDirectory } from '../adapters/redis/match-directory.js';
import { RedisOwnerInbox } from '../adapters/redis/owner-inbox.js';
import { RedisPreviewStore } from '../adapters/redis/preview-store.js';
import { RedisSessionStore } from '../adapters/redis/session-store.js';
import { RedisSnapshotStore } from '../adapters/redis/snapshot-store.js';
import { RedisTeamInfoStore } from '../adapters/redis/team-info-store.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { FrameTextSource } from '../ports/frame-bus.js';

/** NODE_ID, or host name, process id and a random suffix (a restarted process is a new node). */
export function nodeIdFrom(config: Config): string {
  if (config.NODE_ID) return config.NODE_ID;
  const host = os.hostname().replace(/[^A-Za-z0-9_.-]/g, '-').slice(0, 40) || 'node';
  return `${host}-${process.pid}-${crypto.randomBytes(3).toString('hex')}`;
}

/** `texts`: where frames published here without their text get it (the frame bus's keyframe answers). */
export async function openRedisPorts(config: Config, log: Logger, texts: FrameTextSource) {
  const conn = await RedisConnection.open({
    url: config.REDIS_URL,
    prefix: config.REDIS_KEY_PREFIX,
    nodeId: nodeIdFrom(config),
    timeoutMs: config.REDIS_TIMEOUT_MS,
    probeIntervalMs: config.REDIS_PROBE_INTERVAL_MS,
    log,
  });
  try {
    const directory = await RedisMatchDirectory.open(conn, { leaseTtlMs: config.REDIS_LEASE_TTL_MS, log });
    const snapshots = new RedisSnapshotStore(conn, { log });
    const frames = new RedisFrameBus(conn, { log, texts });
    const inbox = new RedisOwnerInbox(conn, { log });
    return {
      conn,
      ownership: directory,
      inbox,
      frameStats: frames.stats,
      shared: {
        previews: new RedisPreviewStore(conn, { ttlMs: config.PREVIEW_TTL_MS, maxEntries: config.PREVIEW_MAX, maxBytes: config.PREVIEW_MAX_BYTES }),
        teamInfo: new RedisTeamInfoStore(conn, { ttlMs: config.TEAM_INFO_TTL_MS }),
        sessions: new RedisSessionStore(conn, { windowMs: config.RECOVERY_WINDOW_MS, log }),
        directory,
        snapshots,
        frames,
        control: new RedisControlBus(conn, { log }),
      },
    };
  } catch (err) {
    conn.close();
    throw err;
  }
}

export type RedisPorts = Awaited<ReturnType<typeof openRedisPorts>>;
