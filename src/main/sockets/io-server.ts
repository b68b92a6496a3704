// One Socket.IO server on one uWS app, configured the way the real clients expect (docs/client-contract.md 1.1):
// default path and namespace, polling and websocket, CORS *, the default heartbeat, deflate above 1 KiB.
import { Server, type ServerOptions } from 'socket.io';
import type { Adapter } from 'socket.io-adapter';
import type { Config } from '../base/config.js';
import { DEFLATE_THRESHOLD_BYTES, UWS_IDLE_TIMEOUT_S } from '../base/limits.js';
import { DISABLED, SHARED_COMPRESSOR, type TemplatedApp } from '../internals/uws.js';
import { answerUnknownPathsUws, SOCKET_IO_PATH } from './unknown-paths.js';

export interface IoServerOptions {
  adapter: typeof Adapter;
  /** Connection state recovery (ingestion only, docs/client-contract.md 1.5). */
  recovery: boolean;
  /** Per-socket send buffer limit in bytes (uWS maxBackpressure). */
  maxBackpressure: number;
  /** A Socket.IO parser other than socket-io-parser (the ingestion listener's, ingest-parser.ts). */
  parser?: ServerOptions['parser'];
  /** engine.io's handshake check (MAX_SOCKETS_PER_ADDRESS). */
  allowRequest?: (req: unknown, callback: (err: string | null | undefined, success: boolean) => void) => void;
}

/** The options both listeners share: what the real clients expect (docs/client-contract.md 1.1). */
export function baseIoOptions(config: Config, allowRequest?: IoServerOptions['allowRequest']) {
  return {
    path: SOCKET_IO_PATH,
    serveClient: false,
    transports: ['polling', 'websocket'] as ('polling' | 'websocket')[],
    cors: { origin: '*' },
    pingInterval: config.PING_INTERVAL_MS,
    pingTimeout: config.PING_TIMEOUT_MS,
    // A connection that never joins the namespace (clients send CONNECT right after the handshake)
    // is closed after REQUEST_HEAD_TIMEOUT_MS, or the idle timeout when shorter (docs/reliability.md,
    // "Connection abuse"). An upgrade from polling to WebSocket gets the heartbeat's span: the real
    // clients (engine.io-client 6.6) pause polling once the probe is answered and wait for their
    // pending poll and post; a probe closed meanwhile leaves the client paused for good, deaf and
    // losing what it emits until its ping timeout (a venue's clients reconnecting at once after an
    // outage: test/main/sockets/slow-upgrade.test.ts). A session that is gone is closed by the
    // heartbeat within that span, its probe with it; a session has one probe at a time.
    connectTimeout: Math.min(config.IDLE_SOCKET_TIMEOUT_MS, config.REQUEST_HEAD_TIMEOUT_MS),
    upgradeTimeout: config.PING_INTERVAL_MS + config.PING_TIMEOUT_MS,
    maxHttpBufferSize: config.MAX_MESSAGE_BYTES,
    ...(allowRequest ? { allowRequest: allowRequest as never } : {}),
    httpCompression: config.COMPRESSION ? { threshold: DEFLATE_THRESHOLD_BYTES } : false as const,
  };
}

export function createIoServer(app: TemplatedApp, config: Config, options: IoServerOptions): Server {
  const io = new Server({
    ...baseIoOptions(config, options.allowRequest),
    perMessageDeflate: config.COMPRESSION ? { threshold: DEFLATE_THRESHOLD_BYTES } : false,
    adapter: options.adapter,
    ...(options.parser ? { parser: options.parser } : {}),
    ...(options.recovery
      ? { connectionStateRecovery: { maxDisconnectionDuration: config.RECOVERY_WINDOW_MS, skipMiddlewares: true } }
      : {}),
  });
  // The typings reject uWS-only options; engine.io's uServer passes these three to app.ws().
  const uwsOptions = {
    compression: config.COMPRESSION ? SHARED_COMPRESSOR : DISABLED,
    maxBackpressure: options.maxBackpressure,
    idleTimeout: UWS_IDLE_TIMEOUT_S,
  };
  io.attachApp(app, uwsOptions as unknown as Parameters<Server['attachApp']>[1]);
  // Every other path answers 404 { error } at once, like the REST port (unknown-paths.ts).
  answerUnknownPathsUws(app);
  return io;
}

/** Socket.IO payloads arrive as JSON strings (docs/client-contract.md 1.2); plain objects are accepted too. */
export function parsePayload(payload: unknown): { ok: true; value: unknown } | { ok: false; error: string } {
  if (typeof payload === 'string') {
    try {
      return { ok: true, value: JSON.parse(payload) };
    } catch (err) {
      return { ok: false, error: (err as Error).message };
    }
  }
  if (payload !== null && typeof payload === 'object' && !Array.isArray(payload) && !Buffer.isBuffer(payload)) return { ok: true, value: payload };
  return { ok: false, error: `unexpected payload type ${payload === null ? 'null' : typeof payload}` };
}
