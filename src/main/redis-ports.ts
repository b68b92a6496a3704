// Scale-out: the ports on Redis (REDIS_URL set). Opens the connection (the start fails with a
// clear message when Redis does not answer within REDIS_TIMEOUT_MS) and builds every port's Redis
// adapter on it, plus what only a shared deployment has: match ownership and the owners' inboxes.
// `opened` lists them all in order of creation, the connection first (service.ts closes them in
// reverse).
import crypto from 'node:crypto';
import { RedisInputLog } from './matches/adapters/redis/input-log.js';
import os from 'node:os';
import { RedisConnection } from './redis/connection.js';
import { RedisControlBus } from './control/adapters/redis/control-bus.js';
import { RedisEventOutbox } from './events/adapters/redis/event-outbox.js';
import { RedisFrameBus } from './frames/adapters/redis/frame-bus.js';
import { RedisMatchDirectory } from './matches/adapters/redis/match-directory.js';
import { RedisMatchOwnership } from './matches/adapters/redis/match-ownership.js';
import { RedisOwnerInbox } from './matches/adapters/redis/owner-inbox.js';
import { RedisPreviewStore } from './previews/adapters/redis/preview-store.js';
import { RedisDeadLetters, RedisRecordStore } from './events/adapters/redis/record-store.js';
import { RedisSessionStore } from './sessions/adapters/redis/session-store.js';
import { RedisSnapshotStore } from './matches/adapters/redis/snapshot-store.js';
import { RedisStandbyStore } from './standby/adapters/redis/standby-store.js';
import { RedisFixtureStore } from './schedule/adapters/redis/fixture-store.js';
import { RedisOutputDelayStore } from './output-delay/adapters/redis/output-delay-store.js';
import { RedisWebhookEndpointStore } from './events/adapters/redis/webhook-endpoint-store.js';
import { RedisBracketStore } from './brackets/adapters/redis/bracket-store.js';
import { RedisTeamInfoStore } from './previews/adapters/redis/team-info-store.js';
import type { Config } from './base/config.js';
import type { Logger } from './base/log.js';

/** NODE_ID, or host name, process id and a random suffix (a restarted process is a new node). */
export function nodeIdFrom(config: Config): string {
  if (config.NODE_ID) return config.NODE_ID;
  const host = os.hostname().replace(/[^A-Za-z0-9_.-]/g, '-').slice(0, 40) || 'node';
  return `${host}-${process.pid}-${crypto.randomBytes(3).toString('hex')}`;
}

export async function openRedisPorts(config: Config, log: Logger) {
  const conn = await RedisConnection.open({
    url: config.REDIS_URL,
    prefix: config.REDIS_KEY_PREFIX,
    nodeId: nodeIdFrom(config),
    timeoutMs: config.REDIS_TIMEOUT_MS,
    probeIntervalMs: config.REDIS_PROBE_INTERVAL_MS,
    log,
    sentinels: config.REDIS_SENTINELS,
    sentinelName: config.REDIS_SENTINEL_NAME,
    sentinelPassword: config.REDIS_SENTINEL_PASSWORD,
  });
  // Every port, in order of creation: the composition root closes them in reverse (the connection last).
  const opened: Array<{ close(): void }> = [conn];
  const made = <T extends { close(): void }>(port: T): T => { opened.push(port); return port; };
  try {
    const directory = made(await RedisMatchDirectory.open(conn, { leaseTtlMs: config.REDIS_LEASE_TTL_MS, log }));
    const ownership = made(new RedisMatchOwnership(conn, directory, { leaseTtlMs: config.REDIS_LEASE_TTL_MS, log, outputsRetentionMs: config.EVENTS_RETENTION_MS }));
    const snapshots = made(new RedisSnapshotStore(conn, { log }));
    const frames = made(new RedisFrameBus(conn, { log }));
    const inbox = made(new RedisOwnerInbox(conn, { log }));
    return {
      conn,
      ownership,
      inbox,
      eventOutbox: made(new RedisEventOutbox(conn, { retentionMs: config.EVENTS_RETENTION_MS })),
      records: made(new RedisRecordStore(conn, { retentionMs: config.EVENTS_RETENTION_MS })),
      deadLetters: made(new RedisDeadLetters(conn, { retentionMs: config.EVENTS_RETENTION_MS })),
      webhookEndpoints: made(new RedisWebhookEndpointStore(conn)),
      brackets: made(new RedisBracketStore(conn)),
      inputLog: made(new RedisInputLog(conn, { log })),
      frameStats: frames.stats,
      opened,
      shared: {
        previews: made(new RedisPreviewStore(conn, { ttlMs: config.PREVIEW_TTL_MS, maxEntries: config.PREVIEW_MAX, maxBytes: config.PREVIEW_MAX_BYTES })),
        teamInfo: made(new RedisTeamInfoStore(conn, { ttlMs: config.TEAM_INFO_TTL_MS })),
        sessions: made(new RedisSessionStore(conn, { windowMs: config.RECOVERY_WINDOW_MS, log })),
        directory,
        snapshots,
        frames,
        control: made(new RedisControlBus(conn, { log })),
        standby: made(new RedisStandbyStore(conn)),
        fixtures: made(new RedisFixtureStore(conn)),
        outputDelays: made(new RedisOutputDelayStore(conn)),
      },
    };
  } catch (err) {
    for (const port of opened.reverse()) port.close();
    throw err;
  }
}

export type RedisPorts = Awaited<ReturnType<typeof openRedisPorts>>;
