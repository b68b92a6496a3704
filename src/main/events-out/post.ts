// One webhook delivery through undici's Pool (`request`): keep-alive connections to the endpoint's
// origin, at most 8 (one per lane in flight). Webhooks are the one outbound path that runs per match
// event, so the client's own CPU counts: measured on this machine (client and a local receiver in two
// processes, 8 in flight, 4,000 POSTs; docs/events.md, "Why undici's Pool"), a POST through
// `fetch` cost ~840 µs, through node:http with a keep-alive agent ~65–110 µs, through undici's
// `Pool.request` ~40–55 µs. The same rules as every outbound call: the whole exchange times out
// (OUTBOUND_TIMEOUT_MS, one timer that aborts the request), redirects are not followed (a 3xx is a
// failure: no redirect interceptor), the answer's body is read and discarded up to a bound, and every
// call is reported (metrics).
import { Pool } from 'undici';
import type { OutboundReport } from '../backend/http.js';
import { MAX_OUTBOUND_RESPONSE_BYTES } from '../base/limits.js';

export type WebhookPost = (body: string, headers: Record<string, string>) => Promise<number>;

type Outcome = Parameters<OutboundReport>[2];

/** A poster for one endpoint URL: resolves with the HTTP status, rejects with a short reason (timeout, network code, too large). */
export function webhookPoster(url: string, timeoutMs: number, report?: OutboundReport): { post: WebhookPost; close(): void } {
  const target = new URL(url);
  const path = target.pathname + target.search;
  // undici's own timeouts as a backstop; the exchange's bound is the timer below.
  const pool = new Pool(target.origin, { connections: 8, pipelining: 1, headersTimeout: timeoutMs * 2, bodyTimeout: timeoutMs * 2 });
  const post: WebhookPost = async (body, headers) => {
    const started = performance.now();
    const abort = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => { timedOut = true; abort.abort(); }, timeoutMs);
    let outcome: Outcome = 'network';
    try {
      const res = await pool.request({ path, method: 'POST', headers, body, signal: abort.signal });
      let size = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > MAX_OUTBOUND_RESPONSE_BYTES) {
          res.body.destroy();
          outcome = 'too-large';
          throw new Error('response too large');
        }
      }
      const status = res.statusCode;
      outcome = `${Math.min(5, Math.max(2, Math.floor(status / 100)))}xx` as Outcome;
      return status;
    } catch (err) {
      const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
      if (timedOut || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT') {
        outcome = 'timeout';
        throw new Error(`no answer within ${timeoutMs} ms`);
      }
      if (outcome === 'too-large') throw err;
      outcome = 'network';
      throw new Error(e.code ?? e.cause?.code ?? 'request failed');
    } finally {
      clearTimeout(timer);
      report?.('webhook', (performance.now() - started) / 1000, outcome);
    }
  };
  return { post, close: () => { void pool.destroy().catch(() => undefined); } };
}
