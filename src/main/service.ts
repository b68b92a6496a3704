// The composition root: the whole service assembled in one place, in dependency order, from named
// ports and components (docs/architecture.md). Nothing is wired anywhere else: every component gets
// what it needs here, components talk through the ports and the event bus (base/events.ts), and start
// and stop happen here, in order.
//
//   config → logger → TLS, access key → event bus, outbound client → ports (memory adapters,
//   STATE_DIR's, or Redis's) → key chain → matches (routes, backend sync, shard output and recovery,
//   shard pool, lifecycle, routing; with Redis the cluster runtime) → listeners (ingestion,
//   broadcast, REST with the dashboard) → metrics.
import path from 'node:path';
import { Dashboard } from './admin/dashboard.js';
import { LinkHealth } from './admin/link-health.js';
import { createAdminTokens } from './http/admin-tokens.js';
import { StateFiles } from './state-dir/files.js';
import { StateDirSessionStore } from './sessions/adapters/state-dir/session-store.js';
import { StateDirSnapshotStore } from './matches/adapters/state-dir/snapshot-store.js';
import { MemoryControlBus } from './control/adapters/memory/control-bus.js';
import { MemoryFrameBus } from './frames/adapters/memory/frame-bus.js';
import { MemoryMatchDirectory } from './matches/adapters/memory/match-directory.js';
import { MemoryPreviewStore } from './previews/adapters/memory/preview-store.js';
import { MemorySessionStore } from './sessions/adapters/memory/session-store.js';
import { MemorySnapshotStore } from './matches/adapters/memory/snapshot-store.js';
import { MemoryTeamInfoStore } from './previews/adapters/memory/team-info-store.js';
import { MemoryStandbyStore } from './standby/adapters/memory/standby-store.js';
import { StateDirStandbyStore } from './standby/adapters/state-dir/standby-store.js';
import { resolveAuthKey, type AuthKeySource } from './base/auth-key.js';
import { createKeyValidator, createOutbound, createSupportPackages, KeysFile, type KeyValidator } from './backend/index.js';
import { Cluster, FrameTexts, LocalRoutes, MatchInputs, MatchLifecycle, MatchRouting, MatchSync, ObserverClock, OwnerDelivery, ShardOutput, ShardRecovery } from './matches/index.js';
import { BroadcastServer } from './broadcast/server.js';
import type { Config } from './base/config.js';
import { EventBus, type MainEvents } from './base/events.js';
import { JournalFiles, openEventOutput } from './events/index.js';
import { FileEventOutbox } from './events/adapters/state-dir/event-outbox.js';
import { FileDeadLetters, FileRecordStore } from './events/adapters/state-dir/record-store.js';
import { DataDirWebhookEndpointStore, WEBHOOK_ENDPOINTS_FILE } from './events/adapters/data-dir/webhook-endpoint-store.js';
import { OutputDelays } from './output-delay/index.js';
import { DataDirOutputDelayStore, OUTPUT_DELAYS_FILE } from './output-delay/adapters/data-dir/output-delay-store.js';
import { IngestServer } from './ingest/server.js';
import { SHUTDOWN_CLOSE_MARGIN_MS, SHUTDOWN_MIN_DRAIN_MS, SUMMARY_WAIT_MS } from './base/limits.js';
import { createLogger, type Logger } from './base/log.js';
import { LoopBeat } from './base/loop-beat.js';
import { StateDirInputLog } from './matches/adapters/state-dir/input-log.js';
import { RehearsalControl, Rehearsals } from './rehearsal/index.js';
import { createStandby } from './standby/index.js';
import { openSchedule } from './schedule/index.js';
import { Brackets } from './brackets/index.js';
import { BRACKETS_FILE, DataDirBracketStore } from './brackets/adapters/data-dir/bracket-store.js';
import { StartggPlatform } from './brackets/adapters/startgg/platform.js';
import { ChallongePlatform } from './brackets/adapters/challonge/platform.js';
import { FIXTURES_FILE, DataDirFixtureStore } from './schedule/adapters/data-dir/fixture-store.js';
import { ShardTotals } from './shards/totals.js';
import { Metrics } from './metrics/metrics.js';
import type { SharedPorts } from './shared-ports.js';
import { registerRestRoutes } from './rest/index.js';
import { ShardFeedTables } from './feeds/index.js';
import { ShardPool } from './shards/pool.js';
import { loadInlineShard } from './shards/threads.js';
import { shardPoolOptions } from './shards/pool-options.js';
import { setupTls, type TlsSetup } from './base/tls.js';
import { describeLimit } from './base/fd-limit.js';
import { Listeners } from './sockets/listeners.js';
import { createApp } from './internals/uws.js';
import { SERVICE_VERSION } from './base/version.js';

export interface ServiceOptions {
  logger?: Logger;
  /** Enables test-only socket events. */
  testHooks?: boolean;
}

/** The components that run this process's matches. */
export interface MatchComponents {
  pool: ShardPool;
  routes: LocalRoutes;
  lifecycle: MatchLifecycle;
  routing: MatchRouting;
  output: ShardOutput;
  recovery: ShardRecovery;
  totals: ShardTotals;
}

export interface Service {
  readonly config: Config;
  readonly log: Logger;
  readonly tls: TlsSetup;
  readonly authKey: { key: string; source: AuthKeySource };
  /** `metrics` is null when METRICS_ENABLED=false. */
  readonly ports: { ingest: number; rest: number; broadcast: number; metrics: number | null };
  readonly shared: SharedPorts;
  readonly events: EventBus<MainEvents>;
  /** The key validity chain (observer logon, previews, GET /getOrgForKey). */
  readonly keys: KeyValidator;
  readonly matches: MatchComponents;
  readonly ingest: IngestServer;
  readonly broadcast: BroadcastServer;
  /** The operator dashboard's data; null without ADMIN_TOKEN. */
  readonly dashboard: Dashboard | null;
  readonly metrics: Metrics | null;
  /** REDIS_URL: this node's part of the cluster (ownership, takeover, inboxes); null in one process. */
  readonly cluster: Cluster | null;
  /** Connection caps, deadlines and the descriptor watch of the three listeners (sockets/listeners.ts). */
  readonly listeners: Listeners;
  /** Immediate stop (tests): listeners and sockets closed, shards stopped; nothing persisted or completed. */
  close(): Promise<void>;
  /**
   * Graceful stop (SIGTERM/SIGINT): stop accepting, close ingestion sockets (clients reconnect and
   * resend what they buffered), send each live match's latest frame, then persist the matches and
   * sessions (STATE_DIR) or complete registered matches with the backend (no STATE_DIR), then
   * close everything. Bounded by SHUTDOWN_TIMEOUT_MS.
   */
  shutdown(): Promise<void>;
}

export async function startService(config: Config, options: ServiceOptions = {}): Promise<Service> {
  const log = options.logger ?? createLogger(config);
  const tls = await setupTls(config);
  const authKey = resolveAuthKey(config);

  // The event bus, and the outbound client that reports every call on it (metrics).
  const events = new EventBus<MainEvents>();
  const request = createOutbound((label, seconds, outcome) => events.emit('outboundCall', { label, seconds, outcome }));

  // Ports: the embedded default keeps everything in memory; STATE_DIR makes snapshots and sessions durable; REDIS_URL
  // shares them all between nodes (redis-ports.ts, imported only then: an embedded service loads no ioredis, adapters or Lua).
  const redis = config.REDIS_URL ? await (await import('./redis-ports.js')).openRedisPorts(config, log) : null;
  const stateFiles = config.STATE_DIR ? new StateFiles(config.STATE_DIR, log) : null;
  const shared: SharedPorts = redis ? redis.shared : {
    previews: new MemoryPreviewStore({ ttlMs: config.PREVIEW_TTL_MS, maxEntries: config.PREVIEW_MAX, maxBytes: config.PREVIEW_MAX_BYTES }),
    teamInfo: new MemoryTeamInfoStore({ ttlMs: config.TEAM_INFO_TTL_MS, cleanupMs: config.TEAM_INFO_CLEANUP_MS }),
    sessions: stateFiles
      ? new StateDirSessionStore(stateFiles, { windowMs: config.RECOVERY_WINDOW_MS, writeIntervalMs: config.SNAPSHOT_INTERVAL_MS, log })
      : new MemorySessionStore(config.RECOVERY_WINDOW_MS),
    directory: new MemoryMatchDirectory(),
    snapshots: stateFiles ? new StateDirSnapshotStore(stateFiles) : new MemorySnapshotStore(),
    frames: new MemoryFrameBus(),
    control: new MemoryControlBus(),
    standby: stateFiles ? new StateDirStandbyStore(stateFiles) : new MemoryStandbyStore(),
    // The schedule is operator data: kept in DATA_DIR even without STATE_DIR (docs/fixtures.md).
    fixtures: new DataDirFixtureStore(path.join(config.DATA_DIR, FIXTURES_FILE)),
    outputDelays: new DataDirOutputDelayStore(path.join(config.DATA_DIR, OUTPUT_DELAYS_FILE)),
  };
  const { previews, teamInfo, sessions, directory, snapshots, frames, control, standby: standbyStore, fixtures, outputDelays } = shared;
  // Every port in order of creation (Redis: the connection first), closed in reverse by closeAll.
  const opened: ReadonlyArray<{ close(): void }> = redis ? redis.opened : [previews, teamInfo, sessions, directory, snapshots, frames, control, standbyStore, fixtures, outputDelays];

  // The key chain. KEYS_FILE is read now: a missing or invalid file stops the start (ConfigError).
  const keysFile = config.KEYS_FILE ? new KeysFile(config.KEYS_FILE, log) : undefined;
  const keys = createKeyValidator({ config, log, authKey: authKey.key, keysFile, request });

  // The matches: what the shards send back goes to `output` and `recovery`, which the pool is given.
  const routes = new LocalRoutes();
  const sync = new MatchSync({ config, log, directory, events, request });
  // The per-match output delay (output-delay/output-delays.ts): operator data like the schedule (DATA_DIR, or Redis).
  const delays = await OutputDelays.open(outputDelays, { shared: redis !== null, log });
  // Match events out (events/, EVENTS_ENABLED): journal files (STATE_DIR or DATA_DIR), the outbox on them (records, dead letters too without Redis).
  const eventFiles = config.EVENTS_ENABLED ? new JournalFiles(path.join(path.resolve(config.STATE_DIR || config.DATA_DIR), 'events'), log) : null;
  const eventOutput = eventFiles ? await openEventOutput({ config, log, directory, delays, shared: redis?.eventOutbox ?? null, files: eventFiles, fileOutbox: new FileEventOutbox(eventFiles), ...(redis ? { node: { id: redis.conn.nodeId, epochOf: (code: string) => routes.get(code)?.epoch, leaseLeftMs: (code: string) => redis.ownership.leaseLeftMs(code), outputs: redis.ownership } } : {}), records: redis?.records ?? new FileRecordStore(eventFiles, config.EVENTS_RETENTION_MS), deadLetters: redis?.deadLetters ?? new FileDeadLetters(eventFiles), endpointStore: redis?.webhookEndpoints ?? new DataDirWebhookEndpointStore(path.join(config.DATA_DIR, WEBHOOK_ENDPOINTS_FILE)), report: (label, seconds, outcome) => events.emit('outboundCall', { label, seconds, outcome }) }) : null;
  // GET /feeds of a local match: its shard makes the tables (feeds/shard-tables.ts), asked through routing, answered through `output`.
  const feedTables = new ShardFeedTables(routes);
  // The input log (matches/input-log.ts): with durable snapshots, the inputs after a match's last one.
  const inputLog = !config.INPUT_LOG ? undefined : redis ? redis.inputLog : stateFiles ? new StateDirInputLog(path.join(config.STATE_DIR, 'inputs'), log) : undefined;
  const output = new ShardOutput({ log, frames, directory, routes, snapshots, teamInfo, sync, events, feedTables: feedTables.take, ...(inputLog ? { inputLog } : {}), ...(eventOutput ? { journal: eventOutput.journal } : {}) });
  const recovery = new ShardRecovery({ log, routes, snapshots, frames, events });
  const totals = new ShardTotals(events);
  // Scale-out: data for matches another node runs goes to their inboxes (held while nobody runs them).
  const remote = redis ? new OwnerDelivery({ inbox: redis.inbox, log, events, maxAgeMs: config.RECOVERY_WINDOW_MS, nodeId: redis.conn.nodeId, retainMs: 2 * config.REDIS_LEASE_TTL_MS + config.SNAPSHOT_INTERVAL_MS, maxHeld: Math.max(2000, 2 * config.INGEST_BACKLOG_PER_SOCKET) }) : undefined;
  const inline = config.SHARD_WORKERS === 0 ? await loadInlineShard() : undefined;
  const pool = new ShardPool({ ...shardPoolOptions(config, log), onOutput: output.handle, onCrash: recovery.onCrash, ...(inline ? { inline } : {}), ...(inputLog ? { beforePost: () => inputLog.flush() } : {}) });
  const inputs = new MatchInputs({ pool, routes, log, ...(inputLog ? { inputLog } : {}) });
  // The texts of frames that stayed in the shards, asked for on the frame bus by its recipients
  // (broadcast, REST, with Redis the keyframe answers): the pool's shards make them (matches/frame-texts.ts).
  frames.setFrameTextSource(new FrameTexts({ pool, routes, events }));
  const lifecycle = new MatchLifecycle({ config, log, pool, routes, directory, snapshots, frames, teamInfo, sessions, control, events, sync, inputs });
  // A standby observer per match (standby/standby.ts): its store is one of the ports above.
  const clock = new ObserverClock();
  const standby = createStandby({ config, log, store: standbyStore, directory, control, inputs, routes, events, clock });
  const routing = new MatchRouting({ pool, inputs, directory, routes, events, relay: standby.relay, clock, ...(remote ? { remote } : {}) });
  feedTables.setRouting(routing);
  const matches: MatchComponents = { pool, routes, lifecycle, routing, output, recovery, totals };
  const cluster = redis && remote
    ? new Cluster({ log, events, redis, lifecycle, routing, routes, remote, leaseTtlMs: config.REDIS_LEASE_TTL_MS, ...(eventOutput ? { outputs: (code: string, key: string, epoch?: number) => eventOutput.journal.takeOver(code, key, epoch) } : {}) })
    : null;

  // Durable snapshots (STATE_DIR): the matches of the previous run come back before anything listens.
  // With Redis they belong to whichever node adopts them (matches/takeover.ts), not to a starting node.
  if (snapshots.durable && !cluster) await lifecycle.resume(await snapshots.loadAll(), eventOutput?.journal.matches);
  // The schedule (schedule/, docs/fixtures.md): after the resumed matches, which its live maps are checked against.
  // Its keeper reaches a match's shard through routing; the maps' results come on the event bus (mapFinished).
  const schedule = await openSchedule({ log, events, routing, directory, teamInfo, store: fixtures, shared: redis !== null });
  // Linked brackets (brackets/, docs/brackets.md): their matches become fixtures, the series' results go back. The links
  // (with their tokens) are operator data in DATA_DIR, or Redis (one node, the lead, reads and reports them); adapters built here.
  const bracketStore = redis?.brackets ?? new DataDirBracketStore(path.join(config.DATA_DIR, BRACKETS_FILE));
  const brackets = await Brackets.open({
    log, store: bracketStore, keeper: schedule, directory, nodeId: redis?.conn.nodeId ?? 'local', leadTtlMs: config.REDIS_LEASE_TTL_MS,
    platforms: [
      new StartggPlatform({ url: config.STARTGG_API_URL, timeoutMs: config.BRACKETS_TIMEOUT_MS, request }),
      new ChallongePlatform({ url: config.CHALLONGE_API_URL, timeoutMs: config.BRACKETS_TIMEOUT_MS, request }),
    ],
    pollMs: config.BRACKETS_POLL_MS, retryMs: config.BRACKETS_RETRY_MS, retryMaxMs: config.BRACKETS_RETRY_MAX_MS,
  });

  // Listeners: two uWS apps (ingestion, REST); broadcast runs on node:http (broadcast/server.ts).
  const ingestApp = createApp(tls.files);
  const restApp = createApp(tls.files);
  const beat = new LoopBeat(); // the main thread's heartbeat: its loop delay (/metrics), a stall's credit (ingest budgets)
  const ingest = new IngestServer(ingestApp, {
    beat, config, log, keys, directory, lifecycle, routing, sessions, control, standby, schedule, testHooks: options.testHooks ?? false,
    ...(cluster ? { sharedStoreUp: () => cluster.redisUp } : {}),
  });
  const broadcast = new BroadcastServer({ config, log, tls: tls.files, frames });
  const listeners = new Listeners({ config, log, apps: { ingest: ingestApp, rest: restApp }, broadcast: broadcast.http, ingestEngine: ingest.io.engine });
  const links = new LinkHealth({ config, ingest, broadcast, routes, clock: routing.clock, relay: standby.relay, frames });
  eventOutput?.watch({ events, codes: () => routes.codes(), lastAt: (code) => routing.clock.last(code), silent: (code, now) => { const r = directory.get(code); return r ? links.silent(r, routes.get(code)?.summary, now) : false; } });
  const adminTokens = createAdminTokens(config.ADMIN_TOKEN);
  // Rehearsals: recordings played into group codes (rehearsal/); their routes need ADMIN_TOKEN.
  const rehearsals = new Rehearsals({ config, log, lifecycle, routing, control, events });
  const rehearsalControl = new RehearsalControl({ rehearsals, control, directory, clustered: cluster !== null, log });
  const dashboard = adminTokens.enabled
    ? new Dashboard({ directory, routes, published: output.counters, shardTotals: totals, frames, ingest, broadcast, maxOpen: config.DASHBOARD_MAX_OPEN, links, mismatchOf: (code: string) => schedule.flagsOf(code), watchSummaries: (on) => pool.watchSummaries(on, SUMMARY_WAIT_MS), ...(redis ? { ownerOf: (code: string) => redis.ownership.ownerOf(code) } : {}) })
    : null;
  const stopRest = registerRestRoutes(restApp, {
    config, log, keys, previews, teamInfo, directory, frames, eventOutput, feedTables, delays, scheduledTeams: (code: string) => schedule.teamInfoFor(code),
    feedsBetween: {
      holdMs: config.FEEDS_FINAL_HOLD_MS, fixture: (code: string) => schedule.feedFixtureFor(code),
      onEnded: (listener) => events.on('matchStopped', ({ groupCode, finalFrameText }) => { if (finalFrameText) listener(groupCode, finalFrameText); }),
    },
    ...(cluster ? { cluster: { nodeId: cluster.nodeId, redisUp: () => cluster.redisUp } } : {}),
    ...(config.USE_BACKEND ? { backend: { packages: createSupportPackages(config, log, request), request } } : {}),
    ...(dashboard ? {
      admin: {
        tokens: adminTokens, dashboard, lifecycle,
        rehearsal: { rehearsals, control: rehearsalControl, previews, maxUploadBytes: config.REHEARSAL_MAX_UPLOAD_BYTES, maxPayloadBytes: config.MAX_PAYLOAD_BYTES },
        standby: { standby, directory, control, ownedHere: (code: string) => routes.get(code) !== undefined },
        fixtures: { keeper: schedule, directory },
        brackets,
      },
    } : {}),
  });
  const metrics = config.METRICS_ENABLED
    ? new Metrics({ config, log, beat, events, directory, published: output.counters, shardTotals: totals, recovery, ingest, broadcast, cluster, listeners, standby: { relay: standby.relay, silentMatches: () => links.silentCount(directory.all()) }, fixtureMismatches: () => schedule.mismatches() })
    : null;

  const stopListening = () => listeners.close();
  /** Everything stops, listeners first, then in reverse order of assembly. */
  const closeAll = async () => {
    stopListening();
    rehearsals.close();
    rehearsalControl.close();
    lifecycle.close();
    brackets.close();
    if (!redis) bracketStore.close(); // Redis's is one of `opened`
    schedule.close();
    standby.close();
    sync.close();
    await Promise.allSettled([ingest.close(), broadcast.close(), pool.terminate(), metrics?.close()]);
    beat.close();
    dashboard?.close();
    keysFile?.close();
    cluster?.close();
    remote?.close();
    eventOutput?.close();
    stopRest();
    delays.close();
    if (inputLog && !redis) inputLog.close(); // Redis's is one of `opened`
    for (let i = opened.length - 1; i >= 0; i--) opened[i].close();
    for (const app of [ingestApp, restApp]) (app as unknown as { close?: () => void }).close?.();
  };

  let ports: Service['ports'];
  try {
    ports = {
      ingest: await listeners.listenUws('ingest', config.INGEST_PORT),
      rest: await listeners.listenUws('rest', config.REST_PORT),
      broadcast: await broadcast.listen(config.HOST, config.BROADCAST_PORT),
      metrics: metrics ? await metrics.listen() : null,
    };
  } catch (err) {
    await closeAll();
    throw err;
  }

  cluster?.start();

  let closed = false;
  const service: Service = {
    config, log, tls, authKey, ports, shared, events, keys, matches, ingest, broadcast, dashboard, metrics, cluster, listeners,
    async close() {
      if (closed) return;
      closed = true;
      await closeAll();
    },
    async shutdown() {
      if (closed) return;
      closed = true;
      const started = Date.now();
      // Leave room for closing the listeners within SHUTDOWN_TIMEOUT_MS.
      const deadline = started + Math.max(SHUTDOWN_MIN_DRAIN_MS, config.SHUTDOWN_TIMEOUT_MS - SHUTDOWN_CLOSE_MARGIN_MS);
      const slog = log.child({ module: 'service' });
      // 1. Stop accepting: no new connections on any listener.
      stopListening();
      broadcast.stopListening();
      // 2. Ingestion sockets close: clients reconnect (to the restarted service) and resend what they
      //    buffered meanwhile; what was received is already on its way to the shards.
      await ingest.close();
      // 3. Every live match's latest frame to its overlays; then keep them (durable snapshots) or end them.
      //    With Redis, other nodes hold what they receive for these matches from now on, and adopt
      //    them as soon as this node hands them over.
      const live = [...routes.all()].length;
      cluster?.stopInboxes();
      await rehearsals.endAll(Math.max(0, (deadline - Date.now()) / 4));
      await lifecycle.shutdown(deadline);
      await sessions.flush(Date.now());
      if (cluster) slog.info({ matches: await cluster.handOver() }, 'matches handed over to the other nodes');
      slog.info({ liveMatches: live, persisted: snapshots.durable, ms: Date.now() - started }, cluster ? 'live matches snapshotted in Redis' : snapshots.durable ? 'live matches persisted to STATE_DIR' : 'live matches completed');
      // 4. Overlay sockets close (they reconnect and log on again), then the rest.
      await closeAll();
    },
  };
  log.info({ module: 'service', ports, tls: tls.source, accessKeySource: authKey.source, version: SERVICE_VERSION }, 'service started');
  return service;
}

/** The start banner: URLs, TLS, the key to use, and how to point the clients at the service. */
export function banner(service: Service): string {
  const { config, ports, tls, authKey } = service;
  const scheme = tls.files ? 'https' : 'http';
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? 'localhost' : config.HOST;
  const lines = [
    `Overlay data service ${SERVICE_VERSION} — ${tls.files ? `TLS (${tls.source === 'configured' ? 'configured certificate' : `self-signed certificate ${tls.source} in ${config.DATA_DIR}`})` : 'plain HTTP/WS (INSECURE=true)'}`,
    `  ingestion (observer client)   ${scheme}://${host}:${ports.ingest}`,
    `  REST API                      ${scheme}://${host}:${ports.rest}`,
    `  broadcast (overlay frontend)  ${scheme}://${host}:${ports.broadcast}`,
  ];
  if (ports.metrics !== null) lines.push(`  metrics (Prometheus)          http://${config.METRICS_HOST}:${ports.metrics}/metrics`);
  lines.push(`  ${describeLimit(service.listeners.limit)}`);
  if (config.STATE_DIR) lines.push(`  live matches and sessions are kept in ${config.STATE_DIR} (STATE_DIR) and resumed after a restart`);
  if (service.cluster) lines.push(`  node ${service.cluster.nodeId} of a cluster on Redis (REDIS_URL): matches, sessions, previews and team info are shared`);
  if (!config.REQUIRE_AUTH_KEY) lines.push('  access key: any key is accepted (REQUIRE_AUTH_KEY=false)');
  else if (authKey.source === 'generated' || authKey.source === 'reused') lines.push(`  access key: ${authKey.key}   (${authKey.source === 'generated' ? 'generated now' : 'generated earlier'}, kept in ${config.DATA_DIR}/auth-key)`);
  else if (authKey.source === 'configured') lines.push('  access key: the configured AUTH_KEY');
  if (config.USE_BACKEND) lines.push('  access keys are also validated by the backend (USE_BACKEND=true)');
  lines.push(
    `  observer client: type ${scheme}://<this host>:${ports.ingest} as the ingest server and use the key above`,
    `  overlay frontend: set serverEndpoint to ${scheme}://<this host>:${ports.broadcast} and extrasEndpoint to ${scheme}://<this host>:${ports.rest}`,
  );
  if (tls.files && tls.source !== 'configured') {
    lines.push('  note: browsers do not trust the self-signed certificate; use INSECURE=true for a local overlay, or SERVER_CERT/SERVER_KEY for a public one (README)');
  }
  return lines.join('\n');
}
