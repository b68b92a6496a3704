// REST API (5101) on uWS directly. Interim: /status and 404 only; the full route set comes next.
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { TemplatedApp } from '../uws.js';

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
  close(): void;
}

export function createRestApi(deps: RestDeps): RestApi {
  return {
    register(app) {
      app.get('/status', (res) => {
        res.cork(() => {
          res.writeHeader('Content-Type', 'application/json').writeHeader('Access-Control-Allow-Origin', '*');
          res.end(JSON.stringify({ status: 'UP', matchesRunning: deps.matchesRunning() }));
        });
      });
      app.any('/*', (res) => {
        res.cork(() => {
          res.writeStatus('404 Not Found').writeHeader('Content-Type', 'application/json').writeHeader('Access-Control-Allow-Origin', '*');
          res.end(JSON.stringify({ error: 'Not found' }));
        });
      });
    },
    close() {},
  };
}
