// obs_data and aux_data: checked without parsing (a session of the right role, a string or plain
// object, at most MAX_PAYLOAD_BYTES), then forwarded as raw JSON text to the match's shard
// (matches/forwarding.ts). The shards parse and validate.
import type { Config } from '../config.js';
import type { MatchForwarding } from '../matches/forwarding.js';
import { valueDepthExceeds } from '../../protocol/json-depth.js';
import type { Role } from '../ports/session-store.js';
import type { BoundSession, SocketReplies, SocketState } from './socket-state.js';

/** The raw JSON text to forward: strings as received, plain objects re-encoded once. */
function rawText(payload: unknown): string | null {
  if (typeof payload === 'string') return payload;
  if (payload !== null && typeof payload === 'object' && !Array.isArray(payload) && !Buffer.isBuffer(payload)) {
    // A deeply nested object would overflow JSON.stringify's stack; such a payload is refused.
    return valueDepthExceeds(payload) ? null : JSON.stringify(payload);
  }
  return null;
}

export class DataForwarding {
  constructor(private readonly config: Config, private readonly matches: MatchForwarding, private readonly replies: SocketReplies) {}

  observer(state: SocketState, payload: unknown): void {
    const ok = this.forwardable(state, payload, 'observer');
    if (ok && !this.matches.obs(ok.session.groupCode, ok.raw)) this.replies.drop(state, 'invalid_payload');
  }

  auxiliary(state: SocketState, payload: unknown): void {
    const ok = this.forwardable(state, payload, 'auxiliary');
    if (ok && !this.matches.aux(ok.session.matchId, ok.session.playerId, ok.raw)) this.replies.drop(state, 'no_match');
  }

  /** The session and raw text of a data event, or undefined after counting why it is dropped. */
  private forwardable(state: SocketState, payload: unknown, role: Role): { session: BoundSession; raw: string } | undefined {
    const session = state.session;
    if (!session) return void this.replies.drop(state, 'unauthenticated');
    if (session.role !== role) return void this.replies.drop(state, 'wrong_role');
    const raw = rawText(payload);
    if (raw === null) return void this.replies.drop(state, 'invalid_payload');
    if (raw.length > this.config.MAX_PAYLOAD_BYTES) return void this.replies.drop(state, 'too_large');
    return { session, raw };
  }
}
