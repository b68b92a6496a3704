// A webhook receiver as an operator's system would run one: a real local HTTP server that keeps
// every delivery (headers and raw body), answers 204, can be taken down (not listening: connection
// refused) and brought back on the same port, and de-duplicates by event id as docs/events.md asks
// consumers to (for a single-event delivery, its webhook-id).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  headers: Record<string, string>;
}

export interface WebhookReceiver {
  url: string;
  /** Every request received, in arrival order (duplicates included). */
  deliveries: Delivery[];
  /** The parsed events (a batch delivery's each), one per event id, in first-arrival order. */
  unique(): Array<Record<string, unknown> & { id: string; seq: number; type: string; matchKey: string; data: Record<string, unknown> }>;
  /** Resolves once `predicate` holds for the unique events (polled on each delivery), or rejects after `ms`. */
  waitFor(predicate: (events: ReturnType<WebhookReceiver['unique']>) => boolean, ms: number): Promise<void>;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(answer: () => number = () => 204): Promise<WebhookReceiver> {
  const deliveries: Delivery[] = [];
  const waiters = new Set<() => void>();
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const h = req.headers as Record<string, string>;
      deliveries.push({ id: h['webhook-id'], timestamp: h['webhook-timestamp'], signature: h['webhook-signature'], body: Buffer.concat(chunks).toString('utf8'), headers: h });
      res.writeHead(answer()).end();
      for (const w of waiters) w();
    });
  });
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  // By the event's id, as consumers do (docs/events.md): a single delivery's webhook-id is its event's
  // id; a batch endpoint's delivery is an array of events under a webhook-id of its own.
  const unique = (): ReturnType<WebhookReceiver['unique']> => {
    const seen = new Set<string>();
    const out: ReturnType<WebhookReceiver['unique']> = [];
    for (const d of deliveries) {
      const body = JSON.parse(d.body) as ReturnType<WebhookReceiver['unique']>[number] | ReturnType<WebhookReceiver['unique']>;
      for (const e of Array.isArray(body) ? body : [body]) {
        if (seen.has(e.id)) continue;
        seen.add(e.id);
        out.push(e);
      }
    }
    return out;
  };
  return {
    url: `http://127.0.0.1:${port}/hook`,
    deliveries,
    unique,
    waitFor(predicate, ms) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate(unique())) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`webhook receiver: condition not met within ${ms} ms (${deliveries.length} deliveries)`));
        }, ms);
        waiters.add(check);
        check();
      });
    },
    async down() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
    async up() {
      await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    },
    async close() {
      for (const s of sockets) s.destroy();
      if (server.listening) await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
