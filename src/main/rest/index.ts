// REST API (5101) on uWebSockets.js directly: one file per route group, registered here with what
// each needs (the composition root, service.ts, builds it all). Every response carries
// Access-Control-Allow-Origin: *; unknown routes answer 404 { error }.
import type { Dashboard } from '../admin/dashboard.js';
import { createAdminTokens, type AdminTokens } from '../http/admin-tokens.js';
import { type KeyValidator, type Outbound, registerOAuth, registerOrg, registerSupport, type SupportPackages } from '../backend/index.js';
import type { Config } from '../base/config.js';
import type { Logger } from '../base/log.js';
import { type MatchDirectory, type MatchLifecycle, registerMatchData } from '../matches/index.js';
import type { FrameBus } from '../frames/index.js';
import { type PreviewStore, registerPreviews, registerTeamInfo, type TeamInfoStore } from '../previews/index.js';
import type { TemplatedApp } from '../internals/uws.js';
import type { Brackets } from '../brackets/index.js';
import { registerAdmin } from './admin.js';
import { type BetweenMatches, feedFrames, registerFeeds, type ShardFeedTables } from '../feeds/index.js';
import { type EventOutput, registerEvents } from '../events/index.js';
import type { OutputDelays } from '../output-delay/index.js';
import type { StandbyRouteDeps } from '../standby/index.js';
import type { FixtureRouteDeps } from '../schedule/index.js';
import { createRouter } from '../http/router.js';
import type { RehearsalRouteDeps } from '../rehearsal/index.js';
import { registerReaders } from './readers.js';
import { registerStatus, type ClusterStatus } from './status.js';

export interface RestDeps {
  config: Config;
  log: Logger;
  /** The key validity chain (also used by the observer logon). */
  keys: KeyValidator;
  previews: PreviewStore;
  teamInfo: TeamInfoStore;
  directory: MatchDirectory;
  frames: FrameBus;
  /** USE_BACKEND: support packages and the OAuth exchange. */
  backend?: { packages: SupportPackages; request: Outbound };
  /** REDIS_URL: this node's id and Redis's reachability for /status. */
  cluster?: ClusterStatus;
  /** EVENTS_ENABLED: match events out (GET /events, webhooks and records in the admin API); null when off. */
  eventOutput: EventOutput | null;
  /** ADMIN_TOKEN: the operator routes. */
  admin?: { tokens: AdminTokens; dashboard: Dashboard; lifecycle: MatchLifecycle; rehearsal: RehearsalRouteDeps; standby?: StandbyRouteDeps; fixtures?: FixtureRouteDeps; brackets?: Brackets };
  /** A scheduled code's teams before its first match (GET /getTeamInfoForCode; schedule/keeper.ts). */
  scheduledTeams?: (groupCode: string) => { leftTeam: unknown; rightTeam: unknown } | undefined;
  /** The feeds' tables of this process's matches, from their shards (feeds/shard-tables.ts). */
  feedTables?: ShardFeedTables;
  /** The per-match output delays (output-delay/output-delays.ts): the feeds and the admin routes. */
  delays?: OutputDelays;
  /** What a code's feeds answer without a live match: the final state, the fixture (feeds/standing.ts). */
  feedsBetween?: BetweenMatches;
}

/** Registers every route; returns what stops the routes' own timers (a delayed match's feed timeline). */
export function registerRestRoutes(app: TemplatedApp, deps: RestDeps): () => void {
  const { config } = deps;
  const router = createRouter(app, deps.log.child({ module: 'rest' }), config.MAX_BODY_BYTES);
  registerStatus(router, () => deps.directory.count(), deps.cluster);
  registerMatchData(router, deps.frames, deps.cluster ? deps.directory : undefined);
  // EVENTS_READ_TOKEN: GET /events, the records and the dead letters; never an admin write (403).
  const readTokens = createAdminTokens((deps.eventOutput?.readTokens ?? []).map((token, i) => ({ id: `read-${i + 1}`, token })));
  if (deps.admin) {
    registerAdmin(router, { ...deps.admin, readTokens, directory: deps.directory, trustProxy: config.TRUST_PROXY, log: deps.log, eventOutput: deps.eventOutput, ...(deps.delays ? { delays: deps.delays } : {}) });
  }
  if (deps.eventOutput) registerReaders(router, deps.eventOutput, { ...(deps.admin ? { admin: deps.admin.tokens } : {}), read: readTokens, trustProxy: config.TRUST_PROXY, log: deps.log });
  registerEvents(router, deps.eventOutput, deps.log);
  registerPreviews(router, { store: deps.previews, keys: deps.keys, log: deps.log });
  registerOrg(router, deps.keys);
  registerTeamInfo(router, deps.teamInfo, deps.scheduledTeams);
  const stopFeeds = registerFeeds(router, feedFrames(deps.frames, deps.cluster ? deps.directory : undefined, deps.feedTables), config.TRUST_REPLAY_TIMESTAMPS, deps.delays, deps.feedsBetween);
  if (deps.backend) {
    registerSupport(router, deps.backend.packages);
    registerOAuth(router, config, deps.log, deps.backend.request);
  }
  router.finish();
  return stopFeeds;
}
