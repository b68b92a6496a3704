// A small programmable HTTP server on 127.0.0.1 (ephemeral port) that plays a backend the
// service calls: key validation, supporter check, store platform, OAuth provider. It records
// every request (method, path, headers, body) and answers from a handler the test sets.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path and query, as received. */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Answer =
  | { status: number; json?: unknown; text?: string; headers?: Record<string, string>; delayMs?: number; /** answer once this settles */ after?: Promise<unknown> }
  /** Never answer (the service's timeout must fire). */
  | { hang: true }
  /** Drop the connection without an answer. */
  | { destroy: true };

export type BackendHandler = (req: RecordedRequest) => Answer;

export interface FakeBackend {
  url: string;
  requests: RecordedRequest[];
  /** Replaces the handler (applies to the next requests). */
  handle(handler: BackendHandler): void;
  /** Requests whose path starts with the prefix. */
  requestsTo(pathPrefix: string): RecordedRequest[];
  reset(): void;
  close(): Promise<void>;
}

export async function startBackend(handler: BackendHandler = () => ({ status: 404, json: { error: 'not programmed' } })): Promise<FakeBackend> {
  let current = handler;
  const requests: RecordedRequest[] = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const parsed = new URL(req.url ?? '/', 'http://backend');
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        path: parsed.pathname,
        query: parsed.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      let answer: Answer;
      try {
        answer = current(recorded);
      } catch (err) {
        answer = { status: 599, text: String(err) };
      }
      if ('hang' in answer) {
        hanging.add(res);
        return;
      }
      if ('destroy' in answer) {
        req.socket.destroy();
        return;
      }
      const send = () => {
        const body = answer.text ?? (answer.json === undefined ? '' : JSON.stringify(answer.json));
        const type = answer.text !== undefined ? 'text/plain' : 'application/json';
        res.writeHead(answer.status, { 'Content-Type': type, ...answer.headers });
        res.end(body);
      };
      if (answer.after) void answer.after.finally(send);
      else if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    handle(next) {
      current = next;
    },
    requestsTo(prefix) {
      return requests.filter((r) => r.path.startsWith(prefix));
    },
    reset() {
      requests.length = 0;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A URL on 127.0.0.1 where nothing listens (connection refused). */
export async function refusedUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
