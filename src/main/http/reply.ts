// The answer to one uWS request: it knows whether the client went away (onAborted, registered by
// the router only when the handler returns without answering: http/router.ts) and writes each
// response corked, with the CORS header on every one. uWS corks the response itself during the
// route handler's synchronous call (its HttpContext corks the socket around each request it
// parses), so an answer made in that call writes directly; any later answer goes through res.cork.
import type { ResponseStream } from './response-stream.js';
import type { HttpResponse, RecognizedString } from '../internals/uws.js';

const STATUS_TEXT: Record<number, string> = {
  200: '200 OK',
  204: '204 No Content',
  304: '304 Not Modified',
  400: '400 Bad Request',
  401: '401 Unauthorized',
  403: '403 Forbidden',
  404: '404 Not Found',
  413: '413 Payload Too Large',
  414: '414 URI Too Long',
  500: '500 Internal Server Error',
  502: '502 Bad Gateway',
  503: '503 Service Unavailable',
};

const statusLine = (status: number): string => STATUS_TEXT[status] ?? `${status} Status`;

/**
 * A text as bytes for uWS: it converts a string argument to UTF-8 in a malloc'd copy on every call,
 * and reads an ArrayBuffer as it is (a typed array through one more lookup, its buffer). For what
 * is written on every answer of a hot route: a feed poll's 304 is most of what REST serves.
 */
export const bytes = (text: string): ArrayBuffer => new TextEncoder().encode(text).buffer as ArrayBuffer;

const NOT_MODIFIED = bytes(STATUS_TEXT[304]);
const ALLOW_ORIGIN = bytes('Access-Control-Allow-Origin');
const ANY_ORIGIN = bytes('*');
const ETAG = bytes('ETag');

/** Header names and values in turn, as bytes: made once for a route's fixed headers (`Reply.notModified`). */
export const headerBytes = (headers: Record<string, string>): readonly ArrayBuffer[] => Object.entries(headers).flat().map(bytes);

export class Reply {
  private aborted = false;
  private done = false;
  private watching = false;
  /** Only streams listen (created with the first). */
  private abortListeners: Array<() => void> | undefined;

  /** True during the route handler's synchronous call, where uWS has corked the response already (set by the router). */
  inHandlerCall = false;

  constructor(private readonly res: HttpResponse) {}

  /** Registers onAborted (once). Must happen before the uWS handler returns whenever the answer may come later. */
  watchAbort(): void {
    if (this.watching) return;
    this.watching = true;
    this.res.onAborted(() => {
      this.aborted = true;
      if (this.abortListeners) for (const listener of this.abortListeners) listener();
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
  send(status: number, contentType: string | undefined, body: string, headers?: Record<string, string>, close = false): void {
    if (this.finished) return;
    this.done = true;
    const res = this.res;
    const write = () => {
      res.writeStatus(statusLine(status));
      res.writeHeader(ALLOW_ORIGIN, ANY_ORIGIN);
      if (contentType) res.writeHeader('Content-Type', contentType);
      if (headers) for (const name in headers) res.writeHeader(name, headers[name]);
      res.end(body, close);
    };
    if (this.inHandlerCall) write();
    else res.cork(write);
  }

  /** 304 Not Modified: the headers, no body (RFC 9110 15.4.5). `etag`, then `headers`: name and value in turn. */
  notModified(etag: RecognizedString, headers: readonly RecognizedString[]): void {
    if (this.finished) return;
    this.done = true;
    if (this.inHandlerCall) writeNotModified(this.res, etag, headers);
    else this.res.cork(() => writeNotModified(this.res, etag, headers));
  }

  json(status: number, value: unknown, close = false): void {
    this.send(status, 'application/json; charset=utf-8', JSON.stringify(value), undefined, close);
  }

  /** Pre-serialized JSON text. */
  rawJson(status: number, json: string): void {
    this.send(status, 'application/json; charset=utf-8', json);
  }

  text(status: number, text: string): void {
    this.send(status, 'text/plain; charset=utf-8', text);
  }

  html(status: number, html: string, headers?: Record<string, string>): void {
    this.send(status, 'text/html; charset=utf-8', html, headers);
  }

  error(status: number, message: string, extra: Record<string, unknown> = {}, close = false): void {
    this.json(status, { error: message, ...extra }, close);
  }

  /** Starts a streamed response (chunked): status and headers now, then `write` as data comes. */
  stream(status: number, contentType: string, headers: Record<string, string> = {}, first = ''): ResponseStream {
    const res = this.res;
    let closed = this.finished;
    let congested = false;
    const drainListeners: Array<() => void> = [];
    const closeListeners: Array<() => void> = [];
    const closeNow = () => {
      if (closed) return;
      closed = true;
      for (const cb of closeListeners) cb();
    };
    if (!closed) {
      this.watchAbort();
      this.done = true;
      (this.abortListeners ??= []).push(closeNow);
      res.onWritable(() => {
        congested = false;
        for (const cb of drainListeners) cb();
        return true;
      });
      res.cork(() => {
        res.writeStatus(statusLine(status));
        res.writeHeader('Access-Control-Allow-Origin', '*');
        res.writeHeader('Content-Type', contentType);
        for (const [name, value] of Object.entries(headers)) res.writeHeader(name, value);
        if (!res.write(first)) congested = true;
      });
    }
    return {
      write(chunk) {
        if (closed) return false;
        let ok = false;
        res.cork(() => {
          ok = res.write(chunk);
        });
        if (!ok) congested = true;
        return ok;
      },
      get closed() {
        return closed;
      },
      get congested() {
        return congested;
      },
      onDrain: (cb) => void drainListeners.push(cb),
      onClose: (cb) => void closeListeners.push(cb),
      end() {
        if (closed) return;
        res.cork(() => res.end());
        closeNow();
      },
    };
  }
}

/** A 304 written during the route handler's call (uWS's cork): `headers` besides the ETag, names and values in turn. */
export function writeNotModified(res: HttpResponse, etag: RecognizedString, headers: readonly RecognizedString[]): void {
  res.writeStatus(NOT_MODIFIED);
  res.writeHeader(ALLOW_ORIGIN, ANY_ORIGIN);
  res.writeHeader(ETAG, etag);
  for (let i = 0; i < headers.length; i += 2) res.writeHeader(headers[i], headers[i + 1]);
  res.endWithoutBody();
}
