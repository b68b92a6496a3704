// OwnerInbox on Redis (matches/owner-inbox.ts): SPUBLISH on the match's owner channel, which the
// owner SSUBSCRIBEs to while it has a listener for the code.
//
// Encoding (a string; Redis carries it as UTF-8):
//   'o' <raw>                                                      { t: 'obs', raw }
//   's' <raw>                                                      { t: 'obs', raw, seat: 'standby' } (the standby observer)
//   'a' <len>:<matchId><len>:<playerId><raw>                       { t: 'aux', matchId, playerId, raw }
//   'd' <len>:<matchId><len>:<playerId>                            { t: 'aux_disconnected', … }
//   'v' <len>:<via><one of the above>                              the same with `via` (who forwarded it)
//   'b' (<len>:<one of the above>)+                                several messages, in order (one send)
// where <len> is the decimal length of the string that follows (JS string length): no escaping,
// one concatenation per message, and the raw text (most of the bytes) is never copied but once.
import type { Logger } from '../../../base/log.js';
import { InboxNotSent, type InboxMessage, type OwnerInbox } from '../../owner-inbox.js';
import type { RedisConnection } from '../../../redis/connection.js';

type InboxListener = (message: InboxMessage) => void;

export interface RedisOwnerInboxStats {
  sent: number;
  /** Messages not handed to Redis (unreachable) or refused by it. */
  sendFailed: number;
  received: number;
  /** Inbox messages that did not decode. */
  malformed: number;
}

export function encodeInboxMessage(message: InboxMessage): string {
  if (message.t !== 'aux_disconnected' && message.via !== undefined) return `v${message.via.length}:${message.via}${encodeInboxMessage({ ...message, via: undefined })}`;
  switch (message.t) {
    case 'obs': return (message.seat === 'standby' ? 's' : 'o') + message.raw;
    case 'aux': return `a${message.matchId.length}:${message.matchId}${message.playerId.length}:${message.playerId}${message.raw}`;
    case 'aux_disconnected': return `d${message.matchId.length}:${message.matchId}${message.playerId.length}:${message.playerId}`;
  }
}

/** One send's payload: a lone message as itself, several as a batch. */
export function encodeInboxBatch(messages: readonly InboxMessage[]): string {
  if (messages.length === 1) return encodeInboxMessage(messages[0]);
  let out = 'b';
  for (const m of messages) {
    const text = encodeInboxMessage(m);
    out += `${text.length}:${text}`;
  }
  return out;
}

/** The message of an owner-channel payload, or null when it is malformed. */
export function decodeInboxMessage(payload: Buffer): InboxMessage | null {
  if (payload.length < 1) return null;
  return decodeText(payload.toString('utf8'));
}

/** The messages of an owner-channel payload (a lone one or a batch), or null when it is malformed. */
export function decodeInboxBatch(payload: Buffer): InboxMessage[] | null {
  const text = payload.toString('utf8');
  if (text.charCodeAt(0) !== 0x62 /* b */) {
    const one = decodeText(text);
    return one === null ? null : [one];
  }
  const out: InboxMessage[] = [];
  let at = 1;
  while (at < text.length) {
    const colon = text.indexOf(':', at);
    if (colon < 0 || colon - at > 10) return null;
    const len = Number(text.slice(at, colon));
    if (!Number.isInteger(len) || len < 1 || colon + 1 + len > text.length) return null;
    const one = decodeText(text.slice(colon + 1, colon + 1 + len));
    if (one === null) return null;
    out.push(one);
    at = colon + 1 + len;
  }
  return out.length > 0 ? out : null;
}

function decodeText(text: string): InboxMessage | null {
  if (text.length < 1) return null;
  const kind = text.charCodeAt(0);
  if (kind === 0x6f /* o */) return { t: 'obs', raw: text.slice(1) };
  if (kind === 0x73 /* s */) return { t: 'obs', raw: text.slice(1), seat: 'standby' };
  let at = 1;
  const field = (): string | null => {
    const colon = text.indexOf(':', at);
    if (colon < 0 || colon - at > 10) return null;
    const len = Number(text.slice(at, colon));
    if (!Number.isInteger(len) || len < 0 || colon + 1 + len > text.length) return null;
    at = colon + 1 + len;
    return text.slice(colon + 1, at);
  };
  if (kind === 0x76 /* v */) {
    const via = field();
    const inner = via === null ? null : decodeText(text.slice(at));
    return inner === null || inner.t === 'aux_disconnected' || inner.via !== undefined ? null : { ...inner, via: via! };
  }
  const matchId = field();
  const playerId = matchId === null ? null : field();
  if (matchId === null || playerId === null) return null;
  if (kind === 0x61 /* a */) return { t: 'aux', matchId, playerId, raw: text.slice(at) };
  if (kind === 0x64 /* d */ && at === text.length) return { t: 'aux_disconnected', matchId, playerId };
  return null;
}

export class RedisOwnerInbox implements OwnerInbox {
  readonly stats: RedisOwnerInboxStats = { sent: 0, sendFailed: 0, received: 0, malformed: 0 };
  private readonly log: Logger;
  private readonly listeners = new Map<string, { list: readonly InboxListener[]; sub: { unsubscribe: () => void } }>();
  private closed = false;

  constructor(private readonly conn: RedisConnection, options: { log: Logger }) {
    this.log = options.log.child({ module: 'owner-inbox' });
  }

  /** Resolves with the nodes that received it (SPUBLISH's answer: 0 = nobody runs the match now); rejects while Redis is unreachable. */
  send(groupCode: string, messages: readonly InboxMessage[]): Promise<number> {
    if (this.closed || this.conn.cmd.status !== 'ready') {
      this.stats.sendFailed += messages.length;
      return Promise.reject(new InboxNotSent('redis unreachable'));
    }
    this.stats.sent += messages.length;
    const sent = this.conn.cmd.spublish(this.conn.keys.ownerChannel(groupCode), encodeInboxBatch(messages)) as Promise<number>;
    return sent.catch((err: Error): never => {
      this.stats.sendFailed += messages.length;
      // ioredis refused to write it (no offline queue): it never left. Anything else (the connection
      // closed with it in flight, a timeout) may have been published.
      throw err.message.startsWith("Stream isn't writeable") ? new InboxNotSent(err.message) : err;
    });
  }

  listen(groupCode: string, listener: InboxListener): () => void {
    let entry = this.listeners.get(groupCode);
    if (!entry) {
      const created: { list: readonly InboxListener[]; sub: { unsubscribe: () => void } } = { list: [], sub: { unsubscribe: () => undefined } };
      created.sub = this.conn.subscribe(this.conn.keys.ownerChannel(groupCode), (payload) => this.onMessage(groupCode, payload), true);
      this.listeners.set(groupCode, created);
      entry = created;
    }
    entry.list = [...entry.list, listener];
    let listening = true;
    return () => {
      if (!listening) return;
      listening = false;
      const current = this.listeners.get(groupCode);
      if (!current) return;
      current.list = current.list.filter((l) => l !== listener);
      if (current.list.length > 0) return;
      this.listeners.delete(groupCode);
      current.sub.unsubscribe();
    };
  }

  close(): void {
    this.closed = true;
    for (const entry of this.listeners.values()) entry.sub.unsubscribe();
    this.listeners.clear();
  }

  private onMessage(groupCode: string, payload: Buffer): void {
    const entry = this.listeners.get(groupCode);
    if (!entry) return;
    const messages = decodeInboxBatch(payload);
    if (!messages) {
      this.stats.malformed++;
      this.log.warn({ groupCode, bytes: payload.length }, 'owner inbox: malformed message dropped');
      return;
    }
    this.stats.received += messages.length;
    const list = entry.list;
    for (const message of messages) {
      for (let i = 0; i < list.length; i++) {
        try {
          list[i](message);
        } catch (err) {
          this.log.error({ groupCode, error: (err as Error).message }, 'owner inbox listener failed');
        }
      }
    }
  }
}
