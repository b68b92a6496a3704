// The broadcast listener's node:http deadlines, each set on purpose (docs/reliability.md,
// "Connection abuse"). Node's defaults let a connection that never finishes a request live for
// minutes: headersTimeout 60 s and requestTimeout 300 s, checked only every 30 s, and a TLS
// handshake may take 120 s; an idle or slowloris connection held its descriptor for ~90 s or more.
// node's headersTimeout counts from a request's FIRST byte, so a peer that waits almost the whole
// keep-alive time and then drips its head got both; the head deadline here counts from the moment
// the connection opened (or its previous response ended) instead.
import type http from 'node:http';
import type https from 'node:https';
import type net from 'node:net';
import type { Config } from '../base/config.js';

/** How often node checks headersTimeout and requestTimeout (its default, 30 s, would add up to 30 s to each deadline). */
export const DEADLINE_CHECK_MS = 1000;
/** A whole request, body included: a polling POST of MAX_MESSAGE_BYTES (1 MB) at ~40 KB/s still fits. Must be ≥ headersTimeout (node refuses otherwise). */
export const REQUEST_TIMEOUT_MS = 30_000;
/** Idle time allowed between two requests of a keep-alive connection: a polling client sends its next request at once (node's default, set here on purpose). */
export const KEEP_ALIVE_TIMEOUT_MS = 5000;

/**
 * node's own deadlines for the broadcast server, as the public options of http(s).createServer
 * (node's defaults in docs/reliability.md, "Connection abuse"):
 * - the request head must be complete within REQUEST_HEAD_TIMEOUT_MS from the connection's first
 *   moment (or the request's first byte on a keep-alive connection), however slowly it arrives: a
 *   byte every few seconds does not extend it (answered 408 and closed);
 * - a whole request, body included, within REQUEST_TIMEOUT_MS; keep-alive idle KEEP_ALIVE_TIMEOUT_MS;
 * - checked every DEADLINE_CHECK_MS (node's default, 30 s, would add up to 30 s to each deadline);
 * - https: the TLS handshake has the head's deadline (node's default is 120 s).
 */
export function httpServerOptions(config: Pick<Config, 'REQUEST_HEAD_TIMEOUT_MS'>) {
  const head = config.REQUEST_HEAD_TIMEOUT_MS;
  return {
    headersTimeout: head,
    requestTimeout: Math.max(head, REQUEST_TIMEOUT_MS),
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    connectionsCheckingInterval: DEADLINE_CHECK_MS,
    handshakeTimeout: head,
  };
}

/**
 * Socket inactivity during a request (no byte either way): a long-polling GET is answered at the
 * latest by the next ping (PING_INTERVAL_MS), so twice the heartbeat is never a live client.
 * Upgraded WebSockets leave node:http's timeouts; Engine.IO's heartbeat covers them.
 */
export function inactivityTimeoutMs(config: Pick<Config, 'PING_INTERVAL_MS' | 'PING_TIMEOUT_MS'>): number {
  return 2 * (config.PING_INTERVAL_MS + config.PING_TIMEOUT_MS);
}

/** Connections closed because their request head was not complete in time (metrics). */
export interface HeadDeadlineCounter { closed: number }

/**
 * A connection must have sent a complete request head (TLS handshake included) within `ms` of
 * opening, and again within `ms` of its previous response's end while no request is in progress.
 */
export function enforceHeadDeadline(server: http.Server | https.Server, ms: number): HeadDeadlineCounter {
  const counter = { closed: 0 };
  const timers = new WeakMap<net.Socket, NodeJS.Timeout>();
  const inFlight = new WeakMap<net.Socket, number>();
  /** The TCP socket under a TLS one (its timers and counts are kept there). */
  const tcp = (socket: net.Socket): net.Socket => (socket as { _parent?: net.Socket })._parent ?? socket;
  const disarm = (socket: net.Socket) => {
    clearTimeout(timers.get(socket));
    timers.delete(socket);
  };
  const arm = (socket: net.Socket) => {
    disarm(socket);
    const timer = setTimeout(() => {
      counter.closed++;
      socket.destroy();
    }, ms);
    timer.unref();
    timers.set(socket, timer);
  };
  server.on('connection', (socket: net.Socket) => {
    arm(socket);
    socket.once('close', () => disarm(socket));
  });
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const socket = tcp(req.socket);
    disarm(socket);
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    res.once('finish', () => {
      const n = (inFlight.get(socket) ?? 1) - 1;
      inFlight.set(socket, n);
      if (n === 0 && !socket.destroyed) arm(socket);
    });
  });
  // An upgraded connection belongs to Engine.IO (its handshake and heartbeat deadlines) from now on.
  server.on('upgrade', (_req: http.IncomingMessage, socket: net.Socket) => disarm(tcp(socket)));
  return counter;
}
