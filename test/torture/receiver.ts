// The torture harness's webhook receiver (docs/reliability.md, "Torture harness"): a real local HTTP
// server, as a bracket system runs one. Every request's signature is verified with the
// `standardwebhooks` package (a request that fails it counts as a bad signature and is answered 401);
// each request is held a moment before its 204, so that two nodes delivering one match at once overlap
// here; every request is kept with the node that sent it (`x-ods-node`), the matches and events it
// carried, and when it arrived and was answered. It can be taken down (connection refused) and brought
// back on its port.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface TortureEvent { id: string; seq: number; type: string; matchKey: string; round?: number; time?: string; data: Record<string, unknown> }

/** One request as the receiver saw it. */
export interface Arrival {
  node: string;
  matchKeys: string[];
  events: TortureEvent[];
  /** ms (Date.now()) when its head arrived, and when its answer went. */
  start: number;
  end: number;
}

export class TortureReceiver {
  readonly arrivals: Arrival[] = [];
  badSignatures = 0;
  url = '';
  private readonly server: http.Server;
  private readonly sockets = new Set<Socket>();
  private readonly webhook: Webhook;
  private readonly waiters = new Set<() => void>();
  private port = 0;

  /** `holdMs`: the most a request is held before its answer (random 0–holdMs, so overlaps show). */
  constructor(secret: string, private readonly holdMs: number) {
    this.webhook = new Webhook(secret);
    this.server = http.createServer((req, res) => {
      const start = Date.now();
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const h = req.headers as Record<string, string>;
        let parsed: unknown;
        try {
          parsed = this.webhook.verify(body, { 'webhook-id': h['webhook-id'], 'webhook-timestamp': h['webhook-timestamp'], 'webhook-signature': h['webhook-signature'] });
        } catch {
          this.badSignatures++;
          res.writeHead(401).end();
          return;
        }
        const events = (Array.isArray(parsed) ? parsed : [parsed]) as TortureEvent[];
        setTimeout(() => {
          if (req.socket.destroyed) return; // taken down meanwhile: the sender got no answer
          res.writeHead(204).end();
          this.arrivals.push({ node: h['x-ods-node'] ?? '?', matchKeys: [...new Set(events.map((e) => e.matchKey))], events, start, end: Date.now() });
          for (const w of this.waiters) w();
        }, Math.floor(Math.random() * this.holdMs));
      });
    });
    this.server.on('connection', (s) => { this.sockets.add(s); s.on('close', () => this.sockets.delete(s)); });
  }

  async start(): Promise<void> {
    await new Promise<void>((r) => this.server.listen(this.port, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
    this.url = `http://127.0.0.1:${this.port}/hook`;
  }

  /** The events of every answered request, one per event id, in first-arrival order. */
  unique(): TortureEvent[] {
    const seen = new Set<string>();
    const out: TortureEvent[] = [];
    for (const a of this.arrivals) for (const e of a.events) if (!seen.has(e.id)) { seen.add(e.id); out.push(e); }
    return out;
  }

  /** Resolves with true once `predicate` holds (checked on every answered request), false after `ms`. */
  waitFor(predicate: () => boolean, ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const check = () => {
        if (!predicate()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(true);
      };
      const timer = setTimeout(() => { this.waiters.delete(check); resolve(false); }, ms);
      this.waiters.add(check);
      check();
    });
  }

  async down(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    if (this.server.listening) await new Promise<void>((r) => this.server.close(() => r()));
  }

  async up(): Promise<void> {
    if (!this.server.listening) await new Promise<void>((r) => this.server.listen(this.port, '127.0.0.1', r));
  }

  close(): Promise<void> {
    return this.down();
  }
}
