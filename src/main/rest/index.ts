// REST API (5101) on uWebSockets.js directly: one file per route group, wired here.
// Every response carries Access-Control-Allow-Origin: *; unknown routes answer 404 { error }.
import { createKeyValidator, type KeyValidator } from '../backend/key-validation.js';
import { createSupportPackages } from '../backend/store.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { MemoryPreviewStore, type PreviewStore } from '../stores/previews.js';
import { MemoryTeamInfoStore, type TeamInfoStore } from '../stores/team-info.js';
import type { TemplatedApp } from '../uws.js';
import { createRouter } from './http.js';
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

export interface RestApi {
  register(app: TemplatedApp): void;
  /** Clears the timers (preview expiry, team-info cleanup). */
  close(): void;
  /** The key validity chain, also used by the observer logon. */
  keys: KeyValidator;
  teamInfo: TeamInfoStore;
  previews: PreviewStore;
}

/**
 * Upper bound of the bytes all stored previews may hold together (their JSON text). With the
 * defaults (10,000 previews, 1 MiB bodies) the count alone would allow 10 GB; real previews are
 * a few KB, so this only stops abuse. Past it, creation answers 503 like the count bound.
 */
export const PREVIEW_STORE_MAX_BYTES = 256 * 1024 * 1024;

export function createRestApi(deps: RestDeps): RestApi {
  const { config } = deps;
  const log = deps.log.child({ module: 'rest' });
  const keys = createKeyValidator({ config, log: deps.log, authKey: deps.authKey });
  const previews = new MemoryPreviewStore({ ttlMs: config.PREVIEW_TTL_MS, maxEntries: config.PREVIEW_MAX, maxBytes: PREVIEW_STORE_MAX_BYTES });
  const teamInfo = new MemoryTeamInfoStore({ ttlMs: config.TEAM_INFO_TTL_MS, cleanupMs: config.TEAM_INFO_CLEANUP_MS });
  const packages = config.USE_BACKEND ? createSupportPackages(config, deps.log) : undefined;

  return {
    keys,
    teamInfo,
    previews,
    register(app) {
      const router = createRouter(app, log, config.MAX_BODY_BYTES);
      registerStatus(router, deps.matchesRunning);
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
    },
  };
}
