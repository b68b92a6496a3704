// obs_data and aux_data: checked without parsing (a session of the right role, a string or plain
// object, at most MAX_PAYLOAD_BYTES), then forwarded as raw JSON text to the match's shard
// (matches/routing.ts). The shards parse and validate.
import type { Config } from '../base/config.js';
import type { MatchRouting } from '../matches/index.js';
import { valueDepthExceeds } from '../../protocol/json-depth.js';
import { seatOf, type Role } from '../sessions/index.js';
import { RawPayload } from '../sockets/ingest-parser.js';
import type { SocketReplies, SocketState } from './socket-state.js';

/**
 * The raw JSON text to forward: strings as received, objects as their JSON text in the packet
 * (RawPayload, ingest-parser.ts), other plain objects re-encoded once.
 */
function rawText(payload: unknown): string | null {
  if (typeof payload === 'string') return payload;
  if (payload instanceof RawPayload) return payload.text;
  if (payload !== null && typeof payload === 'object' && !Array.isArray(payload) && !Buffer.isBuffer(payload)) {
    // A deeply nested object would overflow JSON.stringify's stack; such a payload is refused.
    return valueDepthExceeds(payload) ? null : JSON.stringify(payload);
  }
  return null;
}

export class PayloadCheck {
  constructor(private readonly config: Config, private readonly matches: MatchRouting, private readonly replies: SocketReplies) {}

  observer(state: SocketState, payload: unknown): void {
    const raw = this.forwardable(state, payload, 'observer');
    if (raw !== null && !this.matches.obs(state.session!.groupCode, raw, seatOf(state.session!))) this.replies.drop(state, 'invalid_payload');
  }

  auxiliary(state: SocketState, payload: unknown): void {
    const raw = this.forwardable(state, payload, 'auxiliary');
    if (raw !== null && !this.matches.aux(state.session!.matchId, state.session!.playerId, raw)) this.replies.drop(state, 'no_match');
  }

  /** The raw text of a data event of a socket whose session has `role`, or null after counting why it is dropped. */
  private forwardable(state: SocketState, payload: unknown, role: Role): string | null {
    const session = state.session;
    if (!session) return this.refuse(state, 'unauthenticated');
    if (session.role !== role) return this.refuse(state, 'wrong_role');
    const raw = rawText(payload);
    if (raw === null) return this.refuse(state, 'invalid_payload');
    if (raw.length > this.config.MAX_PAYLOAD_BYTES) return this.refuse(state, 'too_large');
    state.link.messages++;
    return raw;
  }

  private refuse(state: SocketState, reason: string): null {
    this.replies.drop(state, reason);
    return null;
  }
}
