// The two Socket.IO ports (ingestion on uWS, broadcast on node:http) outside Socket.IO's path:
// what load balancers, health checkers and scanners send. Every request gets a prompt answer,
// the REST port's `404 { error: "Not found" }` with the CORS header (HEAD without a body; headers
// above the parser's limit a bare 431), and the connection is closed afterwards, so no probe holds
// a socket. A bare WebSocket upgrade to another path gets the same 404 instead of hanging.
// Socket.IO itself still answers on its path.
//
// Requests go out byte for byte over raw TCP or TLS sockets (HTTP/1.1, keep-alive by default), and
// each one must be answered AND closed by the service within its own deadline, so a hang fails
// with the request named.
import net from 'node:net';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeAll, connect, connected, overlay } from '../../helpers/clients.js';
import { startTestService, type TestService } from '../../helpers/service.js';

/** Generous: the service answers in milliseconds; a hang must still fail clearly on a loaded machine. */
const DEADLINE_MS = 10_000;

interface RawAnswer { status: number; headers: Record<string, string>; body: string }

/**
 * Sends `request` as written and reads until the service closes the connection. Rejects when the
 * answer is not complete and the connection not closed by the service within DEADLINE_MS.
 */
function raw(url: string, request: string | Buffer, label: string): Promise<RawAnswer> {
  const { hostname, port, protocol } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = protocol === 'https:'
      ? tls.connect({ host: hostname, port: Number(port), rejectUnauthorized: false })
      : net.connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`${label}: not answered and closed within ${DEADLINE_MS} ms (${Buffer.concat(chunks).length} bytes received)`));
    }, DEADLINE_MS);
    socket.once(protocol === 'https:' ? 'secureConnect' : 'connect', () => socket.write(request));
    socket.on('data', (c: Buffer) => chunks.push(c));
    // A reset after the answer (unread request bytes) still counts as closed by the service.
    socket.on('error', () => undefined);
    socket.once('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(text);
      if (end < 0 || !status) return reject(new Error(`${label}: connection closed without an HTTP answer: ${JSON.stringify(text.slice(0, 200))}`));
      const headers: Record<string, string> = {};
      for (const line of text.slice(0, end).split('\r\n').slice(1)) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(status[1]), headers, body: text.slice(end + 4) });
    });
  });
}

const request = (method: string, path: string, extra: string[] = [], body = ''): string =>
  [`${method} ${path} HTTP/1.1`, 'Host: ods.test', ...extra, ...(body ? [`Content-Length: ${Buffer.byteLength(body)}`] : []), '', body].join('\r\n');

const UPGRADE = ['Connection: Upgrade', 'Upgrade: websocket', 'Sec-WebSocket-Version: 13', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=='];

/** Requests answered 404 { error: "Not found" } on both ports. */
const NOT_FOUND: Array<[string, string]> = [
  ['GET /', request('GET', '/')],
  ['GET /status', request('GET', '/status')],
  ['GET /healthz?probe=1', request('GET', '/healthz?probe=1')],
  ['GET /favicon.ico', request('GET', '/favicon.ico')],
  ['GET /socket.io (no trailing slash)', request('GET', '/socket.io')],
  ['POST / with a JSON body', request('POST', '/', ['Content-Type: application/json'], '{"probe":true}')],
  ['POST / declaring 50 MB and sending 1 KB of it', request('POST', '/', ['Content-Length: 52428800']) + 'x'.repeat(1024)],
  ['PUT /status', request('PUT', '/status', [], 'x')],
  ['DELETE /', request('DELETE', '/')],
  ['OPTIONS / (CORS preflight)', request('OPTIONS', '/', ['Origin: https://overlay.example', 'Access-Control-Request-Method: GET'])],
  ['GET with a 10 KB path', request('GET', '/' + 'a'.repeat(10 * 1024))],
  ['GET with a 10 KB header', request('GET', '/', [`X-Filler: ${'b'.repeat(10 * 1024)}`])],
  ['WebSocket upgrade to /', request('GET', '/', UPGRADE)],
  ['WebSocket upgrade to /ws', request('GET', '/ws', UPGRADE)],
  ['WebSocket upgrade to /socket.io (no trailing slash)', request('GET', '/socket.io', UPGRADE)],
];

/** Above each listener's header limit (node:http 16 KiB, uWS 64 KiB): the parser's bare 431. */
const TOO_LARGE: Array<[string, string]> = [
  ['GET with a 100 KB path', request('GET', '/' + 'a'.repeat(100 * 1024))],
  ['GET with a 100 KB header', request('GET', '/', [`X-Filler: ${'b'.repeat(100 * 1024)}`])],
];

const variants = [['plain', 'true'], ['TLS', 'false']] as const;

describe.each(variants)('socket ports over %s', (_name, insecure) => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ INSECURE: insecure });
  });
  afterAll(async () => {
    closeAll();
    await svc?.close();
  });
  const ports = [['ingestion', () => svc.ingest], ['broadcast', () => svc.broadcast]] as const;

  describe.each(ports)('%s port', (portName, url) => {
    it.each(NOT_FOUND)('%s: 404 { error } at once, connection closed', async (label, req) => {
      const answer = await raw(url(), req, `${portName} ${label}`);
      expect(answer.status).toBe(404);
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(answer.headers['access-control-allow-origin']).toBe('*');
      expect(JSON.parse(answer.body)).toEqual({ error: 'Not found' });
    });

    it('HEAD /: 404 without a body, connection closed', async () => {
      const answer = await raw(url(), request('HEAD', '/'), `${portName} HEAD /`);
      expect(answer.status).toBe(404);
      expect(answer.headers['access-control-allow-origin']).toBe('*');
      expect(answer.body).toBe('');
    });

    it.each(TOO_LARGE)('%s: 431 at once, connection closed', async (label, req) => {
      const answer = await raw(url(), req, `${portName} ${label}`);
      expect(answer.status).toBe(431);
    });

    it('Socket.IO still answers on its path (handshake over polling, a client over websocket)', async () => {
      const answer = await raw(url(), request('GET', '/socket.io/?EIO=4&transport=polling', ['Connection: close']), `${portName} polling handshake`);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatch(/^0\{"sid":"/);
      if (portName === 'broadcast') {
        const fe = await overlay(url(), 'HTTPPROBE', ['websocket']);
        expect(fe.socket.connected).toBe(true);
      } else {
        const s = connect(url(), { transports: ['websocket'] });
        await connected(s);
        expect(s.connected).toBe(true);
      }
    });
  });
});
