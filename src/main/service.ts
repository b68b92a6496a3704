// Start and stop, in order: config → logger → TLS → stores and REST → listeners.
// The match shards plug in between the stores and the listeners (docs/architecture.md).
import { resolveAuthKey, type AuthKeySource } from './auth-key.js';
import { BroadcastServer } from './broadcast/server.js';
import type { Config } from './config.js';
import { IngestServer } from './ingest/server.js';
import { MatchHub } from './matches/hub.js';
import { SHUTDOWN_CLOSE_MARGIN_MS, SHUTDOWN_MIN_DRAIN_MS } from './limits.js';
import { createLogger, type Logger } from './log.js';
import { Metrics } from './metrics.js';
import { StateDir } from './state/state-dir.js';
import { createRestApi, type RestApi } from './rest/index.js';
import { setupTls, type TlsSetup } from './tls.js';
import { closeListen, createApp, listen, type TemplatedApp, type us_listen_socket } from './uws.js';
import { SERVICE_VERSION } from './version.js';

export interface ServiceOptions {
  logger?: Logger;
  /** Enables test-only socket events. */
  testHooks?: boolean;
}

export interface Service {
  readonly config: Config;
  readonly log: Logger;
  readonly tls: TlsSetup;
  readonly authKey: { key: string; source: AuthKeySource };
  /** `metrics` is null when METRICS_ENABLED=false. */
  readonly ports: { ingest: number; rest: number; broadcast: number; metrics: number | null };
  readonly rest: RestApi;
  readonly ingest: IngestServer;
  readonly broadcast: BroadcastServer;
  readonly hub: MatchHub;
  readonly metrics: Metrics | null;
  readonly stateDir: StateDir | null;
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

  // Late-bound: the hub needs the listeners to publish to and the listeners need the hub.
  let broadcast: BroadcastServer | null = null;
  let ingest: IngestServer | null = null;
  let hub: MatchHub | null = null;
  const stateDir = config.STATE_DIR ? new StateDir(config.STATE_DIR, log) : null;
  const rest = createRestApi({ config, log, version: SERVICE_VERSION, authKey: authKey.key, matchesRunning: () => hub?.registry.count() ?? 0 });
  hub = new MatchHub({
    config, log, teamInfo: rest.teamInfo,
    publish: (packet) => broadcast?.publish(packet),
    onMatchRemoved: (code, matchId) => ingest?.endSessionsOf(code, matchId),
    ...(stateDir ? { stateDir } : {}),
  });

  // Two uWS apps (ingestion, REST), each with its own routes; broadcast runs on node:http (broadcast/server.ts).
  const ingestApp = createApp(tls.files);
  const restApp = createApp(tls.files);

  ingest = new IngestServer(ingestApp, { config, log, keys: rest.keys, hub, testHooks: options.testHooks ?? false });
  broadcast = new BroadcastServer({ config, log, tls: tls.files, latestFrame: (code) => hub?.registry.latestFrame(code) });
  rest.register(restApp, { hub, ingest, broadcast });

  // STATE_DIR: the matches and sessions of the previous run come back before anything listens.
  let sessionsWritten = -1;
  let sessionTimer: NodeJS.Timeout | null = null;
  if (stateDir) {
    hub.restore(stateDir.loadMatches());
    const resumable = ingest.sessions.importPersisted(stateDir.loadSessions(), Date.now());
    if (resumable > 0) log.info({ module: 'service', sessions: resumable }, 'resumable sessions restored from STATE_DIR');
    const writeSessions = () => {
      if (ingest!.sessions.version === sessionsWritten) return;
      sessionsWritten = ingest!.sessions.version;
      stateDir.writeSessions(ingest!.sessions.exportPersisted(Date.now()));
    };
    sessionTimer = setInterval(writeSessions, config.SNAPSHOT_INTERVAL_MS);
    sessionTimer.unref();
  }
  const metrics = config.METRICS_ENABLED ? new Metrics({ config, log, hub, ingest, broadcast }) : null;

  const tokens: us_listen_socket[] = [];
  const bind = async (app: TemplatedApp, port: number) => {
    const bound = await listen(app, config.HOST, port);
    tokens.push(bound.token);
    return bound.port;
  };
  let ports: Service['ports'];
  try {
    ports = {
      ingest: await bind(ingestApp, config.INGEST_PORT),
      rest: await bind(restApp, config.REST_PORT),
      broadcast: await broadcast.listen(config.HOST, config.BROADCAST_PORT),
      metrics: metrics ? await metrics.listen() : null,
    };
  } catch (err) {
    for (const token of tokens) closeListen(token);
    if (sessionTimer) clearInterval(sessionTimer);
    await Promise.allSettled([ingest.close(), broadcast.close(), hub.close(), metrics?.close()]);
    rest.close();
    throw err;
  }

  let closed = false;
  const closeAll = async () => {
    if (sessionTimer) clearInterval(sessionTimer);
    for (const token of tokens) closeListen(token);
    tokens.length = 0;
    await Promise.allSettled([ingest!.close(), broadcast!.close(), hub!.close(), metrics?.close()]);
    rest.close();
    for (const app of [ingestApp, restApp]) (app as unknown as { close?: () => void }).close?.();
  };
  const service: Service = {
    config, log, tls, authKey, ports, rest, ingest, broadcast, hub, metrics, stateDir,
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
      if (sessionTimer) clearInterval(sessionTimer);
      for (const token of tokens) closeListen(token);
      tokens.length = 0;
      broadcast!.stopListening();
      // 2. Ingestion sockets close: clients reconnect (to the restarted service) and resend what they
      //    buffered meanwhile; what was received is already on its way to the shards.
      await ingest!.close();
      // 3. Every live match's latest frame to its frontends; then persist (STATE_DIR) or complete.
      const live = hub!.registry.count();
      await hub!.shutdown(deadline);
      if (stateDir) {
        stateDir.writeSessions(ingest!.sessions.exportPersisted(Date.now()));
        await stateDir.flush();
      }
      slog.info({ liveMatches: live, persisted: stateDir !== null, ms: Date.now() - started }, stateDir ? 'live matches persisted to STATE_DIR' : 'live matches completed');
      // 4. Frontend sockets close (they reconnect and log on again), then the rest.
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
  if (config.STATE_DIR) lines.push(`  live matches and sessions are kept in ${config.STATE_DIR} (STATE_DIR) and resumed after a restart`);
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
