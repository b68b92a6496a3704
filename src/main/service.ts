// Start and stop, in order: config → logger → TLS → stores and REST → listeners.
// The match shards plug in between the stores and the listeners (docs/architecture.md).
import { resolveAuthKey, type AuthKeySource } from './auth-key.js';
import { BroadcastServer } from './broadcast/server.js';
import type { Config } from './config.js';
import { IngestServer } from './ingest/server.js';
import { MatchHub } from './matches/hub.js';
import { createLogger, type Logger } from './log.js';
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
  readonly ports: { ingest: number; rest: number; broadcast: number };
  readonly rest: RestApi;
  readonly ingest: IngestServer;
  readonly broadcast: BroadcastServer;
  readonly hub: MatchHub;
  close(): Promise<void>;
}

export async function startService(config: Config, options: ServiceOptions = {}): Promise<Service> {
  const log = options.logger ?? createLogger(config);
  const tls = await setupTls(config);
  const authKey = resolveAuthKey(config);

  // Late-bound: the hub needs the listeners to publish to and the listeners need the hub.
  let broadcast: BroadcastServer | null = null;
  let ingest: IngestServer | null = null;
  let hub: MatchHub | null = null;
  const rest = createRestApi({ config, log, version: SERVICE_VERSION, authKey: authKey.key, matchesRunning: () => hub?.registry.count() ?? 0 });
  hub = new MatchHub({
    config, log, teamInfo: rest.teamInfo,
    publish: (packet) => broadcast?.publish(packet),
    onMatchRemoved: (code, matchId) => ingest?.endSessionsOf(code, matchId),
  });

  // Two uWS apps (ingestion, REST), each with its own routes; broadcast runs on node:http (broadcast/server.ts).
  const ingestApp = createApp(tls.files);
  const restApp = createApp(tls.files);

  ingest = new IngestServer(ingestApp, { config, log, keys: rest.keys, hub, testHooks: options.testHooks ?? false });
  broadcast = new BroadcastServer({ config, log, tls: tls.files, latestFrame: (code) => hub?.registry.latestFrame(code) });
  rest.register(restApp, { hub, ingest, broadcast });

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
    };
  } catch (err) {
    for (const token of tokens) closeListen(token);
    await Promise.allSettled([ingest.close(), broadcast.close(), hub.close()]);
    rest.close();
    throw err;
  }

  let closed = false;
  const service: Service = {
    config, log, tls, authKey, ports, rest, ingest, broadcast, hub,
    async close() {
      if (closed) return;
      closed = true;
      for (const token of tokens) closeListen(token);
      await Promise.allSettled([ingest!.close(), broadcast!.close(), hub!.close()]);
      rest.close();
      for (const app of [ingestApp, restApp]) (app as unknown as { close?: () => void }).close?.();
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
