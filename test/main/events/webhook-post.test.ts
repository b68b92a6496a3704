// The webhook client (events/post.ts, undici's Pool) against real local HTTP servers: a signed
// POST arrives as sent and verifies with the standardwebhooks package; the whole exchange times out
// (a server that never answers, one that trickles its body); a redirect is an answer, not followed;
// an answer past the bound and a refused connection are failures with a reason; each call is reported.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { webhookPoster, webhookSigner } from '../../../src/main/events/post.js';
import { MAX_OUTBOUND_RESPONSE_BYTES } from '../../../src/main/base/limits.js';

const SECRET = `whsec_${Buffer.from('webhook-post-test-secret-32-bytes!').toString('base64')}`;
const servers: http.Server[] = [];
const closers: Array<() => void> = [];
afterAll(async () => {
  for (const close of closers) close();
  for (const s of servers) { s.closeAllConnections(); await new Promise((r) => s.close(r)); }
});

async function server(handler: http.RequestListener): Promise<string> {
  const s = http.createServer(handler);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}/hook?x=1`;
}

function poster(url: string, timeoutMs: number) {
  const calls: string[] = [];
  const p = webhookPoster(url, timeoutMs, (label, _seconds, outcome) => calls.push(`${label}:${outcome}`));
  closers.push(p.close);
  return { post: p.post, calls };
}

describe('webhook client (undici Pool)', () => {
  it('posts the body and headers as given; the signature verifies with standardwebhooks', async () => {
    const got: Array<{ url: string; headers: http.IncomingHttpHeaders; body: string }> = [];
    const url = await server((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (c: string) => { body += c; }).on('end', () => { got.push({ url: req.url!, headers: req.headers, body }); res.writeHead(204).end(); });
    });
    const { post, calls } = poster(url, 5000);
    const sign = webhookSigner(SECRET);
    for (let i = 1; i <= 3; i++) {
      const body = JSON.stringify({ id: `K.${i}`, type: 'kill', data: { weapon: 'Vandal', name: 'Zoë ✓' } });
      const ts = Math.floor(Date.now() / 1000);
      const status = await post(body, { 'Content-Type': 'application/json', 'webhook-id': `K.${i}`, 'webhook-timestamp': String(ts), 'webhook-signature': sign(`K.${i}`, ts, body) });
      expect(status).toBe(204);
    }
    expect(got).toHaveLength(3);
    const wh = new Webhook(SECRET);
    got.forEach((g, i) => {
      expect(g.url).toBe('/hook?x=1');
      expect(g.headers['content-length']).toBe(String(Buffer.byteLength(g.body)));
      expect(JSON.parse(g.body)).toMatchObject({ id: `K.${i + 1}`, data: { name: 'Zoë ✓' } });
      expect(() => wh.verify(g.body, { 'webhook-id': String(g.headers['webhook-id']), 'webhook-timestamp': String(g.headers['webhook-timestamp']), 'webhook-signature': String(g.headers['webhook-signature']) })).not.toThrow();
    });
    expect(calls).toEqual(['webhook:2xx', 'webhook:2xx', 'webhook:2xx']);
  });

  it('times out the whole exchange: no answer, and an answer whose body never ends', async () => {
    const silent = await server(() => { /* never answers */ });
    const trickle = await server((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      const timer = setInterval(() => res.write('.'), 100); // always within any idle timeout
      res.on('close', () => clearInterval(timer));
    });
    for (const url of [silent, trickle]) {
      const { post, calls } = poster(url, 600);
      const started = Date.now();
      await expect(post('{}', { 'Content-Type': 'application/json' })).rejects.toThrow('no answer within 600 ms');
      // The bound is the timeout (generous upper limit for a loaded machine).
      expect(Date.now() - started).toBeGreaterThanOrEqual(550);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(calls).toEqual(['webhook:timeout']);
    }
  });

  it('does not follow a redirect; an answer past the bound and a refused connection fail with a reason', async () => {
    let redirected = 0;
    const redirect = await server((req, res) => {
      if (req.url === '/elsewhere') redirected++;
      req.resume();
      res.writeHead(302, { Location: '/elsewhere' }).end();
    });
    const r = poster(redirect, 5000);
    expect(await r.post('{}', {})).toBe(302);
    expect(redirected).toBe(0);
    expect(r.calls).toEqual(['webhook:3xx']);

    const chunk = Buffer.alloc(1 << 20, 'x');
    const huge = await server((req, res) => {
      req.resume();
      res.writeHead(200);
      let sent = 0;
      const more = () => { while (sent <= MAX_OUTBOUND_RESPONSE_BYTES && res.write(chunk)) sent += chunk.length; if (sent <= MAX_OUTBOUND_RESPONSE_BYTES) res.once('drain', () => { sent += chunk.length; more(); }); else res.end(); };
      more();
    });
    const h = poster(huge, 10_000);
    await expect(h.post('{}', {})).rejects.toThrow('response too large');
    expect(h.calls).toEqual(['webhook:too-large']);

    const gone = await server(() => undefined);
    const goneUrl = gone;
    const s = servers.pop()!;
    await new Promise((res) => s.close(res));
    const d = poster(goneUrl, 5000);
    await expect(d.post('{}', {})).rejects.toThrow('ECONNREFUSED');
    expect(d.calls).toEqual(['webhook:network']);
  });
});
