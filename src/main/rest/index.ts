// REST API (5101) on uWebSockets.js directly: one file per route group, wired here.
// Every response carries Access-Control-Allow-Origin: *; unknown routes answer 404 { error }.
import { Dashboard } from '../admin/dashboard.js';
import { createAdminTokens } from '../admin/tokens.js';
import { createKeyValidator, type KeyValidator } from '../backend/key-validation.js';
import { KeysFile } from '../backend/keys-file.js';
import type { BroadcastServer } from '../broadcast/server.js';
import type { IngestServer } from '../ingest/server.js';
import type { MatchHub } from '../matches/hub.js';
import { createSupportPackages } from '../backend/store.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { MemoryPreviewStore, type PreviewStore } from '../stores/previews.js';
import { MemoryTeamInfoStore, type TeamInfoStore } from '../stores/team-info.js';
import type { TemplatedApp } from '../uws.js';
import { registerAdmin } from './admin.js';
import { createRouter } from './http.js';
import { registerMatchData } from './match-data.js';
import { registerOAuth } from './oauth.js';
import { registerOrg } from './org.js';
import { registerPreviews } from './previews.js';
import { registerStatus } from './status.js';
import { registerSupport } from './support.js';
import { registerTeamInfo } from './team-info.js';

export interface RestDeps {
  config: Config;
  log: Logger;
  version: string;
  /** Effective local access key ('' = none). */
  authKey: string;
  matchesRunning(): number;
}

/** The live side of the service, for the routes that read or act on live matches. */
export interface LiveDeps {
  hub: MatchHub;
  ingest: IngestServer;
  broadcast: BroadcastServer;
}

export interface RestApi {
  /** Registers every route; `live` enables /match/:groupCode and (with ADMIN_TOKEN) the admin routes. */
  register(app: TemplatedApp, live?: LiveDeps): void;
  /** Clears the timers (preview expiry, team-info cleanup). */
  close(): void;
  /** The key validity chain, also used by the observer logon. */
  keys: KeyValidator;
  teamInfo: TeamInfoStore;
  previews: PreviewStore;
  /** KEYS_FILE, when configured. */
  keysFile?: KeysFile;
  /** The operator dashboard's data (with ADMIN_TOKEN, once registered). */
  readonly dashboard: Dashboard | null;
}

export function createRestApi(deps: RestDeps): RestApi {
  const { config } = deps;
  const log = deps.log.child({ module: 'rest' });
  // Read now: a missing or invalid KEYS_FILE stops the start (ConfigError).
  const keysFile = config.KEYS_FILE ? new KeysFile(config.KEYS_FILE, deps.log) : undefined;
  const keys = createKeyValidator({ config, log: deps.log, authKey: deps.authKey, keysFile });
  const adminTokens = createAdminTokens(config.ADMIN_TOKEN);
  let dashboard: Dashboard | null = null;
  const previews = new MemoryPreviewStore({ ttlMs: config.PREVIEW_TTL_MS, maxEntries: config.PREVIEW_MAX, maxBytes: config.PREVIEW_MAX_BYTES });
  const teamInfo = new MemoryTeamInfoStore({ ttlMs: config.TEAM_INFO_TTL_MS, cleanupMs: config.TEAM_INFO_CLEANUP_MS });
  const packages = config.USE_BACKEND ? createSupportPackages(config, deps.log) : undefined;

  return {
    keys,
    teamInfo,
    previews,
    keysFile,
    get dashboard() {
      return dashboard;
    },
    register(app, live) {
      const router = createRouter(app, log, config.MAX_BODY_BYTES);
      registerStatus(router, deps.matchesRunning);
      registerMatchData(router, () => live?.hub.registry);
      if (live && adminTokens.enabled) {
        dashboard = new Dashboard({ ...live, maxOpen: config.DASHBOARD_MAX_OPEN });
        registerAdmin(router, { tokens: adminTokens, dashboard, hub: live.hub, ingest: live.ingest, trustProxy: config.TRUST_PROXY, log: deps.log });
      }
      registerPreviews(router, { store: previews, keys, log: deps.log });
      registerOrg(router, keys);
      registerTeamInfo(router, teamInfo);
      if (packages) {
        registerSupport(router, packages);
        registerOAuth(router, config, deps.log);
      }
      router.finish();
    },
    close() {
      previews.close();
      teamInfo.close();
      keysFile?.close();
      dashboard?.close();
    },
  };
}
