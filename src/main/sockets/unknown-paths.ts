// What the two Socket.IO listeners (5100 on uWS, 5200 on node:http) answer outside Socket.IO's
// path: load balancers, health checkers and scanners probe `/`, `/status`, `/favicon.ico`, ...
// Without this, the uWS listener answered uWS's own HTML 404, and the node:http listener never
// answered (engine.io hands requests outside its path to the server's other `request` listeners,
// and there were none), so every probe held a socket until the client gave up.
//
// Both answer at once what the REST port answers for an unknown path: `404 { "error": "Not found" }`
// with `Access-Control-Allow-Origin: *`, for every method (HEAD without the body), then close the
// connection. A WebSocket upgrade to another path gets the same answer instead of an upgrade.
// Requests whose headers exceed the listener's limit get a bare 431 from the HTTP parser first
// (uWS: UWS_HTTP_MAX_HEADERS_SIZE, 64 KiB; node:http: its 16 KiB default).
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { TemplatedApp } from '../internals/uws.js';

/** Socket.IO's path on both listeners (docs/client-contract.md 1.1); engine.io takes every URL that starts with it. */
export const SOCKET_IO_PATH = '/socket.io/';

const BODY = JSON.stringify({ error: 'Not found' });
const CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * uWS listener: a catch-all route. uWS prefers the exact `/socket.io/` routes engine.io registers
 * over a wildcard, whatever the order of registration.
 */
export function answerUnknownPathsUws(app: TemplatedApp): void {
  app.any('/*', (res, req) => {
    const head = req.getMethod() === 'head'; // uWS gives the method lower-cased
    res.cork(() => {
      res.writeStatus('404 Not Found');
      res.writeHeader('Access-Control-Allow-Origin', '*');
      res.writeHeader('Content-Type', CONTENT_TYPE);
      // end() would write the body after a HEAD answer too, which the client then reads as a broken
      // next response. endWithoutBody's length must be 0 here: uWS takes a larger one for a body
      // still to come, and aborts the process when the handler returns.
      if (head) res.endWithoutBody(0, true);
      else res.end(BODY, true);
    });
  });
}

/**
 * node:http listener: the `request` listener the server must be created with, before Socket.IO is
 * attached (engine.io calls the listeners it found at attach time for every other path).
 */
export function answerUnknownPath(_req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(404, {
    'Access-Control-Allow-Origin': '*',
    'Content-Type': CONTENT_TYPE,
    'Content-Length': Buffer.byteLength(BODY),
    // Also drops an unread request body instead of reading it to keep the connection alive.
    Connection: 'close',
  });
  res.end(BODY); // node:http leaves the body out of a HEAD answer
}

/**
 * node:http listener: WebSocket upgrades outside Socket.IO's path get the 404 and a closed socket.
 * engine.io's own handling of them (`destroyUpgrade`, on by default) must be off: it ends such
 * sockets only after a second, without any answer.
 */
export function refuseUnknownUpgrades(server: HttpServer): void {
  server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    if ((req.url ?? '').startsWith(SOCKET_IO_PATH)) return; // engine.io's (same test as its own)
    socket.on('error', () => socket.destroy()); // the peer may be gone already
    socket.end(
      'HTTP/1.1 404 Not Found\r\n'
      + 'Access-Control-Allow-Origin: *\r\n'
      + `Content-Type: ${CONTENT_TYPE}\r\n`
      + `Content-Length: ${Buffer.byteLength(BODY)}\r\n`
      + 'Connection: close\r\n\r\n'
      + BODY,
      () => socket.destroy(),
    );
  });
}
