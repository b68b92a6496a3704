// The one door to what the ingestion listener's hot packets skip in engine.io and socket.io (issue
// 38). Written for engine.io 6.6.12 and socket.io 4.8.4, the versions package-lock.json pins:
// test/main/internals/library-internals.test.ts fails naming this module when an installed version
// differs, and checks on a real server that what is used here is still there. On an upgrade, re-read
// engine.io's lib/socket.ts (onPacket), engine.io's lib/transport.ts (onData),
// engine.io's lib/userver.ts (the uWS `message` handler), socket.io's lib/client.ts (ondata,
// ondecoded) and socket.io's lib/socket.ts (onevent, dispatch), then update WRITTEN_FOR.
//
// Why: an observer's data packet (`42["obs_data",…]` on a WebSocket) went through seven layers
// between uWS and the listener's handler: engine.io's transport decoded it into a packet object and
// emitted it, engine.io's socket emitted it three more times, socket.io's client handed it to the
// parser and, a tick later, to the namespace's socket, which ran its (empty) middleware list and
// emitted it a tick after that. At 20 messages a second from 50 matches the lane takes 14–21 µs a
// message off the main thread's ~122 (docs/perf/message-path.md, "The ingestion lane"). It hands the
// text straight to the listener, which takes the packets its parser's fast path decodes
// (sockets/ingest-parser.ts: the hot events without an ack id) and leaves every other one to go
// the libraries' way. What the libraries do for such a packet and the lane does too:
// - engine.io drops a packet of a socket that is not open; socket.io one of a socket not connected
//   (or not yet: its namespace's socket missing) — the lane leaves those to them;
// - engine.io refreshes the ping timeout once per ping on any packet while a pong is awaited
//   (Socket.onPacket): the lane does the same;
// - socket-io-parser refuses a text packet while a binary packet's attachments are awaited — the
//   lane leaves it to it (internals/socketio-parser.ts).
// What it skips: engine.io's `packet`, `data` and `message` events for these packets (nothing here
// listens to data packets: ingest/link-stats.ts times pongs), socket.io's `onAny` listeners (the
// listener has none: it names unknown events at decoding) and middlewares (`socket.use`: none), and
// the two ticks: the handler runs in the uWS call, before the ticks that call ends with, so an
// earlier packet of the same socket, taken the libraries' way in an earlier call, was handled first.
import type { Socket } from 'socket.io';
import type { Decoder } from 'socket.io-parser';
import { reconstructing } from './socketio-parser.js';

export const WRITTEN_FOR = [
  { package: 'engine.io', version: '6.6.12' },
  { package: 'socket.io', version: '4.8.4' },
] as const;

/** An engine.io transport: the uWS `message` handler calls its onData with each text message. */
interface LaneTransport {
  name: string;
  onData(data: unknown): void;
}

/** engine.io's Socket (socket.io's `socket.conn`), with the private fields its onPacket reads. */
interface EngineConn {
  readyState: string;
  protocol: number;
  transport: LaneTransport;
  pingTimeoutTimer: NodeJS.Timeout | null;
  hasRefreshedPingTimeout: boolean;
  on(event: 'upgrade', listener: (transport: LaneTransport) => void): void;
}

/** ENGINE.IO's MESSAGE packet type, the first character of a data packet's text. */
const MESSAGE = 52; // '4'

/** What a connection's lane hands packets to: its namespace socket now, or none. */
interface Lane { socket: Socket | null; take: (packet: string) => boolean }

/**
 * One lane per engine.io connection, wrapped once on each of its WebSocket transports: a client that
 * leaves the namespace and joins it again over the same connection (socket.io-client's
 * `disconnect()` then `connect()` on one Manager) points the lane at its new socket instead of
 * wrapping the transport again (a wrapper per join would keep each left socket alive with the
 * connection and run a check per layer on every packet).
 */
const lanes = new WeakMap<EngineConn, Lane>();

/**
 * Hands each text data packet `socket` receives over WebSocket to `take` (its Socket.IO packet: the
 * text after engine.io's type) before engine.io and socket.io decode it; a packet `take` refuses
 * (returns false) goes their way. Over HTTP long-polling every packet goes their way, and so does
 * every packet once `socket` disconnected, until the connection's next namespace socket takes the lane.
 */
export function ingestLane(socket: Socket, take: (packet: string) => boolean): void {
  const conn = socket.conn as unknown as EngineConn;
  const known = lanes.get(conn);
  const lane: Lane = known ?? { socket, take };
  lane.socket = socket;
  lane.take = take;
  socket.once('disconnect', () => {
    if (lane.socket === socket) lane.socket = null;
  });
  if (known) return;
  lanes.set(conn, lane);
  const decoder = (socket.client as unknown as { decoder: Decoder }).decoder;
  const wrap = (transport: LaneTransport): void => {
    if (transport.name !== 'websocket') return;
    const theirWay = transport.onData;
    transport.onData = function (this: LaneTransport, data: unknown): void {
      const to = lane.socket;
      if (
        to !== null && typeof data === 'string' && data.charCodeAt(0) === MESSAGE &&
        conn.transport === transport && conn.readyState === 'open' && to.connected && !reconstructing(decoder) &&
        lane.take(data.slice(1))
      ) {
        if (conn.protocol !== 3 && conn.pingTimeoutTimer !== null && !conn.hasRefreshedPingTimeout) {
          conn.pingTimeoutTimer.refresh();
          conn.hasRefreshedPingTimeout = true;
        }
        return;
      }
      theirWay.call(this, data);
    };
  };
  wrap(conn.transport);
  conn.on('upgrade', wrap);
}
