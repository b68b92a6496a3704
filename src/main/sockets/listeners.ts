// The three public listeners' defences against connections that never finish a request
// (docs/reliability.md, "Connection abuse"), put together in one place for service.ts: the
// descriptor limit raised at start, the broadcast listener's node:http deadlines (the uWS ports
// have uWS's own fixed one), the per-address connection caps, and the descriptor watch that
// sheds new connections while the process is out of descriptors.
import type net from 'node:net';
import type { Config } from '../base/config.js';
import { raiseDescriptorLimit, type DescriptorLimit } from '../base/fd-limit.js';
import type { Logger } from '../base/log.js';
import { closeListen, listen, type TemplatedApp, type us_listen_socket } from '../internals/uws.js';
import { ConnectionGuard, type EngineEvents, type Listener, type SheddingState } from './connection-guard.js';
import { DescriptorWatch } from './descriptor-watch.js';
import { enforceHeadDeadline, type HeadDeadlineCounter } from './http-deadlines.js';

export interface ListenerDeps {
  config: Config;
  log: Logger;
  apps: { ingest: TemplatedApp; rest: TemplatedApp };
  /** The broadcast listener's node:http (or https) server. */
  broadcast: net.Server;
  /** The ingestion Engine.IO server: its new sessions and upgrades give their address a token back (connection-guard.ts). */
  ingestEngine?: EngineEvents;
}

export class Listeners {
  readonly limit: DescriptorLimit;
  readonly guards: Record<Listener, ConnectionGuard>;
  readonly descriptors: DescriptorWatch;
  /** Broadcast connections closed for want of a complete request head in time. */
  readonly headTimeouts: HeadDeadlineCounter;
  private readonly tokens: us_listen_socket[] = [];

  constructor(private readonly deps: ListenerDeps) {
    const { config, log, apps, broadcast } = deps;
    this.limit = raiseDescriptorLimit();
    // Behind a reverse proxy every connection is the proxy's: no per-address cap (README, TRUST_PROXY).
    const max = config.TRUST_PROXY ? 0 : config.MAX_CONNECTIONS_PER_ADDRESS;
    const state: SheddingState = { shedding: false };
    const guard = (name: Listener) => new ConnectionGuard(name, max, log, state, config.IPV6_PREFIX_LENGTH);
    this.guards = { ingest: guard('ingest'), rest: guard('rest'), broadcast: guard('broadcast') };
    this.guards.ingest.attachUws(apps.ingest);
    if (deps.ingestEngine) this.guards.ingest.attachEngine(deps.ingestEngine);
    this.guards.rest.attachUws(apps.rest);
    this.guards.broadcast.attachNet(broadcast);
    // node's own deadlines are the broadcast server's creation options (broadcast/server.ts); this
    // one counts from the connection's first moment.
    this.headTimeouts = enforceHeadDeadline(broadcast as Parameters<typeof enforceHeadDeadline>[0], config.REQUEST_HEAD_TIMEOUT_MS);
    this.descriptors = new DescriptorWatch(log, this.limit.soft === Infinity ? null : this.limit.soft, state);
    this.descriptors.watchNet('broadcast', broadcast);
  }

  /** Binds a uWS app (0: an ephemeral port); resolves with the port. */
  async listenUws(name: 'ingest' | 'rest', port: number): Promise<number> {
    const bound = await listen(this.deps.apps[name], this.deps.config.HOST, port);
    this.tokens.push(bound.token);
    return bound.port;
  }

  /** Stops the watch and the uWS listeners (shutdown; the broadcast server is stopped by its owner). */
  close(): void {
    this.descriptors.close();
    for (const token of this.tokens) closeListen(token);
    this.tokens.length = 0;
  }
}
