// One webhook delivery over node:http / node:https with a keep-alive agent per endpoint, instead of
// the service's fetch-based outbound client (backend/http.ts): measured on this machine, a POST
// through fetch (undici) cost ~840 µs of CPU against ~240 µs through node:http with keep-alive
// (client and a local server together, 8 in flight; docs/events.md, "Why not fetch"), and webhooks
// are the one outbound path that runs per match event. The same rules as every outbound call: the
// whole exchange times out (OUTBOUND_TIMEOUT_MS), redirects are not followed (a 3xx is a failure),
// the answer's body is read and discarded up to a bound, and every call is reported (metrics).
import http from 'node:http';
import https from 'node:https';
import type { OutboundReport } from '../backend/http.js';
import { MAX_OUTBOUND_RESPONSE_BYTES } from '../base/limits.js';

export type WebhookPost = (body: string, headers: Record<string, string>) => Promise<number>;

/** A poster for one endpoint URL: resolves with the HTTP status, rejects with a short reason (timeout, network code, too large). */
export function webhookPoster(url: string, timeoutMs: number, report?: OutboundReport): { post: WebhookPost; close(): void } {
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  const agent = secure ? new https.Agent({ keepAlive: true, maxSockets: 8 }) : new http.Agent({ keepAlive: true, maxSockets: 8 });
  const request = secure ? https.request : http.request;
  const post: WebhookPost = (body, headers) => new Promise((resolve, reject) => {
    const started = performance.now();
    let done = false;
    const finish = (outcome: Parameters<OutboundReport>[2], status?: number, error?: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      report?.('webhook', (performance.now() - started) / 1000, outcome);
      if (status !== undefined) resolve(status);
      else reject(new Error(error));
    };
    const req = request(target, { method: 'POST', agent, headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) } }, (res) => {
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_OUTBOUND_RESPONSE_BYTES) { req.destroy(); finish('too-large', undefined, 'response too large'); }
      });
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        finish(`${Math.min(5, Math.max(2, Math.floor(status / 100)))}xx` as Parameters<OutboundReport>[2], status);
      });
      res.on('error', (err: NodeJS.ErrnoException) => finish('network', undefined, err.code ?? 'response error'));
    });
    const timer = setTimeout(() => { req.destroy(); finish('timeout', undefined, `no answer within ${timeoutMs} ms`); }, timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => finish('network', undefined, err.code ?? 'request failed'));
    req.end(body);
  });
  return { post, close: () => agent.destroy() };
}
