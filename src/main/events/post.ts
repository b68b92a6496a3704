// One signed webhook delivery: the signature (webhookSigner, below) and the request through undici's Pool (`dispatch`): keep-alive connections to the endpoint's
// origin, at most 8 (one per lane in flight). Webhooks are the one outbound path that runs per match
// event, so the client's own CPU counts: measured on this machine (bench/webhook-client.ts: the
// receiver in another process, 8 in flight; docs/benchmarks.md, "Events, webhooks and feeds at game
// pace"), a POST's client CPU through node:http with a keep-alive agent was 74 µs, through undici's
// `Pool.request` 35 µs, through this module (`Pool.dispatch` with a handler) 25 µs; through `fetch`
// ~840 µs (an earlier measurement, docs/events.md). The same rules as every outbound call: the whole exchange times out
// (OUTBOUND_TIMEOUT_MS, one timer that aborts the request), redirects are not followed (a 3xx is a
// failure: no redirect interceptor), the answer's body is read and discarded up to a bound, and every
// call is reported (metrics).
import { createHmac } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Dispatcher, Pool as UndiciPool } from 'undici';
import type { OutboundReport } from '../backend/index.js';
import { MAX_OUTBOUND_RESPONSE_BYTES } from '../base/limits.js';

export type WebhookPost = (body: string, headers: Record<string, string>) => Promise<number>;

type Outcome = Parameters<OutboundReport>[2];

// undici is loaded with the first endpoint, not at every start (~75 ms of CPU for a service without
// webhooks). A CommonJS package, so `require` loads it synchronously here.
const require = createRequire(import.meta.url);
let Pool: typeof UndiciPool | undefined;

/** A poster for one endpoint URL: resolves with the HTTP status, rejects with a short reason (timeout, network code, too large). */
export function webhookPoster(url: string, timeoutMs: number, report?: OutboundReport): { post: WebhookPost; close(): void } {
  const target = new URL(url);
  const path = target.pathname + target.search;
  // undici's own timeouts as a backstop (connect included); the exchange's bound is the timer below.
  Pool ??= (require('undici') as { Pool: typeof UndiciPool }).Pool;
  const pool = new Pool(target.origin, { connections: 8, pipelining: 1, headersTimeout: timeoutMs * 2, bodyTimeout: timeoutMs * 2, connect: { timeout: timeoutMs * 2 } });
  // `dispatch` with a handler rather than `request`: no AbortSignal, body stream or async iterator per
  // call (the answer's body is counted and dropped as it comes); docs/events.md, "Why undici's Pool".
  const post: WebhookPost = (body, headers) => new Promise((resolve, reject) => {
    const started = performance.now();
    let done = false;
    let controller: Dispatcher.DispatchController | null = null;
    let status = 0;
    let size = 0;
    const finish = (outcome: Outcome, error?: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      report?.('webhook', (performance.now() - started) / 1000, outcome);
      if (error === undefined) resolve(status);
      else reject(new Error(error));
    };
    const timer = setTimeout(() => {
      finish('timeout', `no answer within ${timeoutMs} ms`);
      controller?.abort(new Error('timeout')); // not started yet: aborted as it starts (onRequestStart)
    }, timeoutMs);
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        if (done) c.abort(new Error('timeout'));
      },
      onResponseStart(_c, statusCode) {
        status = statusCode;
      },
      onResponseData(c, chunk) {
        size += chunk.length;
        if (size > MAX_OUTBOUND_RESPONSE_BYTES) {
          finish('too-large', 'response too large');
          c.abort(new Error('response too large'));
        }
      },
      onResponseEnd() {
        finish(`${Math.min(5, Math.max(2, Math.floor(status / 100)))}xx` as Outcome);
      },
      onResponseError(_c, err) {
        const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
        if (e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT' || e.code === 'UND_ERR_CONNECT_TIMEOUT') finish('timeout', `no answer within ${timeoutMs} ms`);
        else finish('network', e.code ?? e.cause?.code ?? 'request failed');
      },
    };
    pool.dispatch({ path, method: 'POST', headers, body }, handler);
  });
  return { post, close: () => { void pool.destroy().catch(() => undefined); } };
}

// The Standard Webhooks signature (docs/events.md, "Signing"): `v1,<base64 HMAC-SHA256 of
// "<webhook-id>.<webhook-timestamp>.<body>">` with the secret's base64 part as the key. Made with
// node:crypto instead of the `standardwebhooks` package's sign(): the package computes the HMAC in
// JavaScript (fast-sha256) and re-encodes the whole body with a TextEncoder on every call, which the
// profile of bench:events showed among the delivery's costs (docs/benchmarks.md, "Match events");
// node:crypto hashes natively from the string. The same bytes: test/main/events/webhooks.test.ts
// verifies every delivery with the package's verify().
export type Signer = (id: string, timestampSeconds: number, body: string) => string;

/** A signer for one endpoint's secret (`whsec_` + base64). */
export function webhookSigner(secret: string): Signer {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
  return (id, timestampSeconds, body) => `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.`).update(body).digest('base64')}`;
}
