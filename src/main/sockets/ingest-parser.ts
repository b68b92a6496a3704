// The ingestion listener's Socket.IO parser (socket.io's `parser` option): socket-io-parser's
// protocol v5, with a fast path for the two hot events. socket-io-parser decodes every text packet
// with one JSON.parse of the whole `["event",payload]` array; the payload of `obs_data` and
// `aux_data` is only forwarded to a shard, which parses it (docs/architecture.md), so here:
//
// - `2["obs_data","<escaped JSON text>"]` (what the Spectra clients send, docs/client-contract.md 1.2):
//   the payload's string literal alone is unescaped (JSON.parse of a string literal, no array, no
//   event name); the handlers get the same string socket-io-parser would give them.
// - `2["obs_data",{…}]` (a payload sent as an object): the object's JSON text is kept as a slice of
//   the packet (RawPayload), checked for one balanced value and its nesting depth by a scan, never
//   parsed or re-encoded on the main thread; the shard parses it once.
//
// Everything else (CONNECT with auth, DISCONNECT, ACK, events with an ack id, another namespace,
// binary events and their attachments, and any hot packet the fast path does not recognise exactly)
// goes through socket-io-parser's own Decoder, so errors, arities and acks stay exactly its own.
// Encoding (what the service sends) is socket-io-parser's Encoder.
//
// Event names the listener does not handle become OTHER_EVENT at decoding, so the listener needs
// no catch-all (`onAny`) listener called for every event.
import { Decoder, Encoder, PacketType, protocol, type Packet } from 'socket.io-parser';
import { MAX_JSON_DEPTH } from '../../protocol/json-depth.js';
import { reconstructing } from '../internals/socketio-parser.js';

/** The event name any event the listener does not handle is given (counted `unknown_event`). */
export const OTHER_EVENT = 'ods:other';

/** The hot events whose payloads are forwarded, not used, on the main thread. */
const HOT = ['obs_data', 'aux_data'] as const;
/** `2["obs_data",`: an EVENT of the main namespace without an ack id (every hot event is this long). */
const HOT_PREFIX_LENGTH = '2["obs_data",'.length;

/**
 * A payload sent as a JSON object, as its JSON text (a slice of the packet), not parsed: one
 * balanced object, at most MAX_JSON_DEPTH deep. Its content is checked where it is parsed (the shard).
 */
export class RawPayload {
  constructor(readonly text: string) {}
}

/** The index after the object that opens at `start`, or -1 (unbalanced, or deeper than MAX_JSON_DEPTH). */
export function objectEnd(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      // Skip the string: to the next quote not escaped (preceded by an even number of backslashes).
      for (;;) {
        const q = text.indexOf('"', i + 1);
        if (q < 0) return -1;
        let k = q - 1;
        while (text.charCodeAt(k) === 92 /* \ */) k--;
        i = q;
        if ((q - 1 - k) % 2 === 0) break;
      }
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > MAX_JSON_DEPTH) return -1;
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      if (--depth === 0) return i + 1;
      if (depth < 0) return -1;
    }
  }
  return -1;
}

/** The hot event a text packet carries (`obs_data`, `aux_data`), or null. */
function hotEvent(str: string): string | null {
  if (str.length <= HOT_PREFIX_LENGTH + 1 || str.charCodeAt(0) !== 50 /* 2 */ || str.charCodeAt(1) !== 91 /* [ */) return null;
  for (const event of HOT) if (str.startsWith(event, 3) && str.charCodeAt(2) === 34 && str.charCodeAt(3 + event.length) === 34 && str.charCodeAt(4 + event.length) === 44) return event;
  return null;
}

/**
 * The fast path's packet for a hot event, or null: the packet is left to socket-io-parser. Also the
 * ingestion lane's (internals/ingest-lane.ts): its `data` is the event's name and its one argument.
 */
export function decodeHot(str: string): Packet | null {
  const event = hotEvent(str);
  if (event === null || str.charCodeAt(str.length - 1) !== 93 /* ] */) return null;
  const first = str.charCodeAt(HOT_PREFIX_LENGTH);
  if (first === 34 /* " */) {
    // The literal must be the whole rest: then it is exactly one argument.
    let text: unknown;
    try {
      text = JSON.parse(str.slice(HOT_PREFIX_LENGTH, -1));
    } catch {
      return null; // several arguments, or not JSON: socket-io-parser decides
    }
    return typeof text === 'string' ? { type: PacketType.EVENT, nsp: '/', data: [event, text] } : null;
  }
  if (first === 123 /* { */ && objectEnd(str, HOT_PREFIX_LENGTH) === str.length - 1) {
    return { type: PacketType.EVENT, nsp: '/', data: [event, new RawPayload(str.slice(HOT_PREFIX_LENGTH, -1))] };
  }
  return null;
}

/** A Decoder class for the Server's `parser` option: `events` are the names the listener handles. */
function decoderFor(events: ReadonlySet<string>): typeof Decoder {
  return class IngestDecoder extends Decoder {
    constructor() {
      super();
      this.on('decoded', renameUnknown);
    }

    override add(obj: unknown): void {
      if (typeof obj === 'string' && !reconstructing(this)) {
        const packet = decodeHot(obj);
        if (packet) return void this.emitReserved('decoded', packet);
      }
      super.add(obj);
    }
  };

  // A listener, not an override: socket-io-parser emits with `super.emitReserved`. Listeners run in
  // the order they were added: this one before socket.io's client, on every decoded packet.
  function renameUnknown(packet: Packet): void {
    if (packet.type !== PacketType.EVENT && packet.type !== PacketType.BINARY_EVENT) return;
    const data = packet.data as unknown[];
    if (typeof data[0] !== 'string' || !events.has(data[0])) data[0] = OTHER_EVENT;
  }
}

/** The `parser` option of the ingestion Server: the names of the events it handles. */
export function ingestParser(events: Iterable<string>): { protocol: number; Encoder: typeof Encoder; Decoder: typeof Decoder } {
  return { protocol, Encoder, Decoder: decoderFor(new Set(events)) };
}
