// Small HTTP helpers over uWS: a body reader with a size limit, and the route wrapper that ties it
// and the reply (reply.ts: it knows whether the client went away) together.
//
// uWS rules kept here, in one place:
// - HttpRequest is valid only during the synchronous handler call: everything a handler needs
//   (path, query, parameters, and the headers and peer address its route declares) is copied into
//   a plain Request first. Only what the route declares: each copy is a call into uWS and a string
//   (PUT /createPreview copied four headers and the address it never read; docs/perf/rest.md).
// - A handler that answers later must register onAborted before returning; after an abort the
//   response must never be touched again. The router registers it once the handler has returned
//   without answering (or before reading a body, or as a stream starts): an answer made during the
//   call (a feed poll's 304) needs none, and skips the native call and its closure.
// - Writes of one response happen corked (one syscall, and required outside the handler): uWS's own
//   cork during the handler's synchronous call, res.cork after it (reply.ts).
// - onData chunks are neutered after the callback: they are copied.
import { MAX_URL_LENGTH } from '../base/limits.js';
import type { Logger } from '../base/log.js';
import { Reply, bytes } from './reply.js';
import type { HttpRequest, HttpResponse, TemplatedApp } from '../internals/uws.js';

/** Handlers get the reply with their request (reply.ts); exported here beside Request. */
export { Reply };

// MAX_URL_LENGTH: longest path plus query a route takes (414 { error } above). uWS itself refuses
// requests whose headers exceed UWS_HTTP_MAX_HEADERS_SIZE (raised to 64 KiB in internals/uws-env.ts) with a
// bare 431, so everything between the two gets the router's answer with the CORS header.
const urlTooLong = (req: HttpRequest): boolean => req.getUrl().length + (req.getQuery()?.length ?? 0) > MAX_URL_LENGTH;

export type QueryParams = Pick<URLSearchParams, 'get' | 'getAll' | 'has'>;

/** What a handler may read of the request: copied out of the stack-allocated HttpRequest. */
export interface Request {
  /** Lower-case, as uWS gives it: the route's method. */
  readonly method: string;
  /** Path without the query string, as sent (not percent-decoded). */
  readonly path: string;
  /** Parsed on first use; read-only (an empty query is one shared object). */
  readonly query: QueryParams;
  /** Route parameters in pattern order, as sent (not percent-decoded). */
  readonly params: readonly string[];
  /** The headers the route declared (RouteOptions.headers; lower-case names; '' when absent). */
  readonly headers: Readonly<Record<string, string>>;
  /** The TCP peer's address (the proxy's, behind a reverse proxy); '' unless the route declared `remoteAddress`. */
  readonly remoteAddress: string;
  /** The body, for routes declared with `body: true`. */
  readonly body: Buffer;
}

/** The first value of a query parameter (a duplicated key uses the first value). */
export const queryParam = (req: Request, name: string): string | undefined => req.query.get(name) ?? undefined;

export type Handler = (req: Request, reply: Reply) => void | Promise<void>;

export interface RouteOptions {
  /** Read the whole body (at most maxBodyBytes) before calling the handler. */
  body?: boolean;
  /** This route's body limit instead of MAX_BODY_BYTES (a rehearsal's replay upload). */
  maxBodyBytes?: number;
  /** Request headers the handler reads (lower-case names): uWS lets them be read only during the handler call. */
  headers?: readonly string[];
  /** Copy the TCP peer's address into `remoteAddress`. */
  remoteAddress?: boolean;
  /**
   * Answers the request from uWS's own request during its call, before anything is copied, when it
   * can (true: answered): a route's one hot answer (a feed poll's 304: feeds/rest.ts). Everything it
   * does not answer goes the route's way. It writes its answer itself, uncorked (uWS's cork holds:
   * reply.ts, `writeNotModified` for a 304), and reads only the request's parameters, query and headers.
   */
  early?: (req: HttpRequest, res: HttpResponse) => boolean;
}

const NO_PARAMS: readonly string[] = Object.freeze([]);
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
const NO_BODY: Buffer = Buffer.alloc(0);
/** Most requests have no query: one shared empty URLSearchParams (handlers only read it). */
const NO_QUERY = new URLSearchParams();

class CapturedRequest implements Request {
  private parsedQuery: QueryParams | undefined;
  body: Buffer = NO_BODY;

  constructor(
    readonly method: string,
    readonly path: string,
    private readonly rawQuery: string,
    readonly params: readonly string[],
    readonly headers: Readonly<Record<string, string>>,
    readonly remoteAddress: string,
  ) {}

  get query(): QueryParams {
    return (this.parsedQuery ??= this.rawQuery === '' ? NO_QUERY : new URLSearchParams(this.rawQuery));
  }
}

export interface Router {
  get(pattern: string, handler: Handler, options?: Omit<RouteOptions, 'body'>): void;
  put(pattern: string, handler: Handler, options?: RouteOptions): void;
  post(pattern: string, handler: Handler, options?: RouteOptions): void;
  /** Registers the CORS preflight (OPTIONS) of every route added so far, then 404 { error } for everything else. Call last. */
  finish(): void;
}

export function createRouter(app: TemplatedApp, log: Logger, maxBodyBytes: number): Router {
  const paramCount = (pattern: string): number => pattern.split('/').filter((part) => part.startsWith(':')).length;

  function capture(method: string, path: string, query: string, res: HttpResponse, req: HttpRequest, params: number, options: RouteOptions, headerKeys: readonly ArrayBuffer[]): CapturedRequest {
    let values = NO_PARAMS;
    if (params > 0) {
      const list: string[] = [];
      for (let i = 0; i < params; i++) list.push(req.getParameter(i) ?? '');
      values = list;
    }
    let headers = NO_HEADERS;
    if (options.headers) {
      const copied: Record<string, string> = {};
      for (let i = 0; i < headerKeys.length; i++) copied[options.headers[i]] = req.getHeader(headerKeys[i]);
      headers = copied;
    }
    const remoteAddress = options.remoteAddress ? Buffer.from(res.getRemoteAddressAsText()).toString() : '';
    return new CapturedRequest(method, path, query, values, headers, remoteAddress);
  }

  function failed(err: unknown, request: Request, reply: Reply): void {
    log.error({ err, path: request.path }, 'request handler failed');
    reply.error(500, 'Internal server error');
  }

  function run(handler: Handler, request: Request, reply: Reply): void {
    try {
      const pending = handler(request, reply);
      if (pending) pending.catch((err: unknown) => failed(err, request, reply));
    } catch (err) {
      failed(err, request, reply);
    }
  }

  const tooLarge = (reply: Reply, maxBodyBytes: number) => reply.error(413, `Request body larger than ${maxBodyBytes} bytes`, {}, true);

  function readBody(res: HttpResponse, reply: Reply, declaredLength: string, maxBodyBytes: number, onBody: (body: Buffer) => void): void {
    if (declaredLength !== '' && Number(declaredLength) > maxBodyBytes) {
      // Answer before reading anything, and close: the rest of the body is not wanted.
      tooLarge(reply, maxBodyBytes);
      return;
    }
    // Most bodies come in one chunk: copied once, no list (Buffer.from(view) copies; the chunk is
    // neutered after the callback).
    let chunks: Buffer[] | undefined;
    let total = 0;
    let overflow = false;
    res.onData((chunk, isLast) => {
      if (overflow || reply.finished) return;
      total += chunk.byteLength;
      if (total > maxBodyBytes) {
        overflow = true;
        chunks = undefined;
        tooLarge(reply, maxBodyBytes);
        return;
      }
      if (isLast && chunks === undefined) return onBody(Buffer.from(new Uint8Array(chunk)));
      (chunks ??= []).push(Buffer.from(new Uint8Array(chunk)));
      if (isLast) onBody(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total));
    });
  }

  const methodsByPattern = new Map<string, string[]>();

  const add = (method: 'get' | 'put' | 'post', pattern: string, handler: Handler, options: RouteOptions = {}) => {
    methodsByPattern.set(pattern, [...(methodsByPattern.get(pattern) ?? []), method.toUpperCase()]);
    const params = paramCount(pattern);
    const headerKeys = (options.headers ?? []).map(bytes); // (reply.ts, `bytes`)
    const early = options.early;
    // uWS routes by method (HEAD does not fall back to GET), so getMethod() is always this.
    app[method](pattern, (res, req) => {
      if (early?.(req, res)) return;
      const path = req.getUrl();
      const query = req.getQuery() ?? '';
      if (path.length + query.length > MAX_URL_LENGTH) return new Reply(res).error(414, `Request URL longer than ${MAX_URL_LENGTH} characters`);
      const request = capture(method, path, query, res, req, params, options, headerKeys);
      const reply = new Reply(res);
      if (!options.body) {
        reply.inHandlerCall = true; // uWS's own cork holds until this call returns (reply.ts)
        run(handler, request, reply);
        reply.inHandlerCall = false;
        if (!reply.finished) reply.watchAbort(); // it answers later
        return;
      }
      reply.watchAbort();
      readBody(res, reply, req.getHeader('content-length'), options.maxBodyBytes ?? maxBodyBytes, (body) => {
        request.body = body;
        run(handler, request, reply);
      });
    });
  };

  return {
    get: (pattern, handler, options) => add('get', pattern, handler, options),
    put: (pattern, handler, options) => add('put', pattern, handler, options),
    post: (pattern, handler, options) => add('post', pattern, handler, options),
    finish() {
      for (const [pattern, methods] of methodsByPattern) preflight(pattern, methods);
      app.any('/*', (res, req) => (urlTooLong(req) ? new Reply(res).error(414, `Request URL longer than ${MAX_URL_LENGTH} characters`) : new Reply(res).error(404, 'Not found')));
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
