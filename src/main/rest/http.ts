// Small HTTP helpers over uWS: a reply object that knows whether the client went away, a body
// reader with a size limit, and the route wrapper that ties them together.
//
// uWS rules kept here, in one place:
// - HttpRequest is valid only during the synchronous handler call: everything a handler needs
//   (path, query, parameters, headers) is copied into a plain Request first.
// - A handler that answers later must register onAborted before returning; after an abort the
//   response must never be touched again.
// - Writes of one response happen inside res.cork (one syscall, and required outside the handler).
// - onData chunks are neutered after the callback: they are copied.
import type { Logger } from '../log.js';
import type { HttpRequest, HttpResponse, TemplatedApp } from '../uws.js';

const STATUS_TEXT: Record<number, string> = {
  200: '200 OK',
  204: '204 No Content',
  400: '400 Bad Request',
  401: '401 Unauthorized',
  403: '403 Forbidden',
  404: '404 Not Found',
  413: '413 Payload Too Large',
  500: '500 Internal Server Error',
  502: '502 Bad Gateway',
  503: '503 Service Unavailable',
};

const statusLine = (status: number): string => STATUS_TEXT[status] ?? `${status} Status`;

export class Reply {
  private aborted = false;
  private done = false;

  constructor(private readonly res: HttpResponse) {
    res.onAborted(() => {
      this.aborted = true;
    });
  }

  /** True once the client disconnected or a response was sent: nothing more may be written. */
  get finished(): boolean {
    return this.aborted || this.done;
  }

  get clientGone(): boolean {
    return this.aborted;
  }

  /**
   * Sends one complete response. Every response carries `Access-Control-Allow-Origin: *`.
   * `close` ends the connection after the response (used when an unread body is still arriving).
   */
  send(status: number, contentType: string | undefined, body: string, headers: Record<string, string> = {}, close = false): void {
    if (this.finished) return;
    this.done = true;
    this.res.cork(() => {
      this.res.writeStatus(statusLine(status));
      this.res.writeHeader('Access-Control-Allow-Origin', '*');
      if (contentType) this.res.writeHeader('Content-Type', contentType);
      for (const [name, value] of Object.entries(headers)) this.res.writeHeader(name, value);
      this.res.end(body, close);
    });
  }

  json(status: number, value: unknown, close = false): void {
    this.send(status, 'application/json; charset=utf-8', JSON.stringify(value), {}, close);
  }

  /** Pre-serialized JSON text. */
  rawJson(status: number, json: string): void {
    this.send(status, 'application/json; charset=utf-8', json);
  }

  text(status: number, text: string): void {
    this.send(status, 'text/plain; charset=utf-8', text);
  }

  html(status: number, html: string, headers: Record<string, string> = {}): void {
    this.send(status, 'text/html; charset=utf-8', html, headers);
  }

  error(status: number, message: string, extra: Record<string, unknown> = {}, close = false): void {
    this.json(status, { error: message, ...extra }, close);
  }
}

/** What a handler may read of the request: copied out of the stack-allocated HttpRequest. */
export interface Request {
  method: string;
  /** Path without the query string, as sent (not percent-decoded). */
  path: string;
  query: URLSearchParams;
  /** Route parameters in pattern order, as sent (not percent-decoded). */
  params: string[];
  /** The body, for routes declared with `body: true`. */
  body: Buffer;
}

/** The first value of a query parameter (a duplicated key uses the first value). */
export const queryParam = (req: Request, name: string): string | undefined => req.query.get(name) ?? undefined;

export type Handler = (req: Request, reply: Reply) => void | Promise<void>;

export interface RouteOptions {
  /** Read the whole body (at most maxBodyBytes) before calling the handler. */
  body?: boolean;
}

export interface Router {
  get(pattern: string, handler: Handler): void;
  put(pattern: string, handler: Handler, options?: RouteOptions): void;
  /** Registers the CORS preflight (OPTIONS) of every route added so far, then 404 { error } for everything else. Call last. */
  finish(): void;
}

export function createRouter(app: TemplatedApp, log: Logger, maxBodyBytes: number): Router {
  const paramCount = (pattern: string): number => pattern.split('/').filter((part) => part.startsWith(':')).length;

  function capture(req: HttpRequest, params: number): Request {
    const values: string[] = [];
    for (let i = 0; i < params; i++) values.push(req.getParameter(i) ?? '');
    return {
      method: req.getMethod(),
      path: req.getUrl(),
      query: new URLSearchParams(req.getQuery() ?? ''),
      params: values,
      body: Buffer.alloc(0),
    };
  }

  function run(handler: Handler, request: Request, reply: Reply): void {
    const fail = (err: unknown) => {
      log.error({ err, path: request.path }, 'request handler failed');
      reply.error(500, 'Internal server error');
    };
    try {
      const pending = handler(request, reply);
      if (pending) pending.catch(fail);
    } catch (err) {
      fail(err);
    }
  }

  function readBody(res: HttpResponse, reply: Reply, declaredLength: string, onBody: (body: Buffer) => void): void {
    const tooLarge = () => reply.error(413, `Request body larger than ${maxBodyBytes} bytes`, {}, true);
    if (declaredLength !== '' && Number(declaredLength) > maxBodyBytes) {
      // Answer before reading anything, and close: the rest of the body is not wanted.
      tooLarge();
      return;
    }
    const chunks: Buffer[] = [];
    let total = 0;
    let overflow = false;
    res.onData((chunk, isLast) => {
      if (overflow || reply.finished) return;
      total += chunk.byteLength;
      if (total > maxBodyBytes) {
        overflow = true;
        chunks.length = 0;
        tooLarge();
        return;
      }
      chunks.push(Buffer.from(new Uint8Array(chunk)));
      if (isLast) onBody(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total));
    });
  }

  const methodsByPattern = new Map<string, string[]>();

  const add = (method: 'get' | 'put', pattern: string, handler: Handler, options: RouteOptions = {}) => {
    methodsByPattern.set(pattern, [...(methodsByPattern.get(pattern) ?? []), method.toUpperCase()]);
    const params = paramCount(pattern);
    app[method](pattern, (res, req) => {
      const request = capture(req, params);
      const reply = new Reply(res); // registers onAborted before anything can be deferred
      if (!options.body) {
        run(handler, request, reply);
        return;
      }
      readBody(res, reply, req.getHeader('content-length'), (body) => {
        request.body = body;
        run(handler, request, reply);
      });
    });
  };

  return {
    get: (pattern, handler) => add('get', pattern, handler),
    put: (pattern, handler, options) => add('put', pattern, handler, options),
    finish() {
      for (const [pattern, methods] of methodsByPattern) preflight(pattern, methods);
      app.any('/*', (res) => new Reply(res).error(404, 'Not found'));
    },
  };

  function preflight(pattern: string, methods: string[]): void {
    app.options(pattern, (res, req) => {
      const requested = req.getHeader('access-control-request-headers');
      const allowHeaders = /^[A-Za-z0-9!#$%&'*+.^_`|~, -]{1,512}$/.test(requested) ? requested : 'Content-Type';
      new Reply(res).send(204, undefined, '', {
        'Access-Control-Allow-Methods': [...methods, 'OPTIONS'].join(', '),
        'Access-Control-Allow-Headers': allowHeaders,
        'Access-Control-Max-Age': '86400',
      });
    });
  }
}
