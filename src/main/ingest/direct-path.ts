// The hot events (obs_data, aux_data) of an authenticated socket, below socket.io's per-event
// dispatch (issue 28; docs/architecture.md, "One `obs_data` message", step 2): the connection's decoder
// (sockets/ingest-parser.ts) hands each hot event it decoded to the socket's `receive`, the same
// function socket.io's listeners call (budget, backlog, payload check, routing: server.ts), with
// socket.io's timing (internals/socketio.ts: two ticks later, if still connected), so the
// socket's events keep their order whichever path each took. Everything else goes through
// socket.io as before: sockets not logged on (or resumed), events with an ack id, other
// namespaces, binary events, packets the decoder's fast path does not recognise exactly, and
// sockets with a `socket.use` middleware or an `onAny` listener (the listener has none).
import { connectionDecoder, dispatchLikeSocketIo, plainDispatch } from '../internals/socketio.js';
import { IngestDecoder, type HotSink } from '../sockets/ingest-parser.js';
import type { IngestCounters, SocketState } from './socket-state.js';

/** The events this path carries. */
export const HOT_EVENTS: ReadonlySet<string> = new Set(['obs_data', 'aux_data']);

/**
 * Sets the socket's connection to hand its hot events to `receive` once the socket carries a
 * session. Counted by path (IngestCounters.hotPaths `direct`; the listener counts `socketio`).
 */
export function openDirectPath(state: SocketState, counters: IngestCounters, receive: (event: string, payload: unknown) => void): void {
  const { socket } = state;
  const decoder = connectionDecoder(socket);
  // Another parser, or a namespace other than the one the fast path decodes for: socket.io's path alone.
  if (!(decoder instanceof IngestDecoder) || socket.nsp.name !== '/') return;
  const sink: HotSink = (event, payload) => {
    if (state.session === null || !socket.connected || !plainDispatch(socket)) return false;
    counters.hotPaths.direct++;
    dispatchLikeSocketIo(socket, receive, event, payload);
    return true;
  };
  decoder.hot = sink;
  socket.once('disconnect', () => {
    if (decoder.hot === sink) decoder.hot = null;
  });
}
