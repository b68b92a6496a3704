// OwnerInbox: ingestion data that reached a node which does not run the match, on its way to the
// node that does (the balancer puts a client on any node; docs/architecture.md explains why data
// is forwarded rather than the match moved). One per-match channel (Redis: SPUBLISH to the owner
// channel of the group code); the owner listens on the channels of the matches it runs.
//
// Order: the messages one node sends for one code arrive in the order sent (one connection, one
// channel). One `send` carries one or more messages, all or none (one SPUBLISH). It resolves with
// how many nodes received them (Redis: SPUBLISH's answer):
// 0 means nobody runs the match right now (its owner died: the sender holds the data until a node
// adopts it, matches/owner-delivery.ts); it rejects when Redis is unreachable: with InboxNotSent
// when the message certainly never left (it may be sent again without a duplicate), with another
// error when its fate is unknown (written, then the connection closed or the command timed out).
// Only the shared adapter exists: in one process every match is local.
// Adapter: matches/adapters/redis/owner-inbox.ts. Contract: test/main/matches/owner-inbox.contract.ts.

/**
 * Who forwarded a payload, as `<node id>:<its send number>` (numbers grow per sending node): kept
 * with the input in the owner's input log and the match's snapshots, so that when the sender takes
 * the match over it knows which of the payloads it forwarded the old owner never applied
 * (matches/owner-delivery.ts, docs/reliability.md "Forwarded to a frozen owner").
 */
export type Via = string;

export type InboxMessage =
  /** `seat`: 'standby' for the standby observer's data (standby/standby-store.ts); absent: the group secret's seat. */
  | { t: 'obs'; raw: string; seat?: 'standby'; via?: Via }
  | { t: 'aux'; matchId: string; playerId: string; raw: string; via?: Via }
  | { t: 'aux_disconnected'; matchId: string; playerId: string };

/** A send that certainly did not leave this node (Redis was not connected): safe to send again. */
export class InboxNotSent extends Error {}

export interface OwnerInbox {
  /** To the node that runs `groupCode` (whichever it is, if any), in order, all or none. */
  send(groupCode: string, messages: readonly InboxMessage[]): Promise<number>;
  /** This node runs `groupCode`: its inbox to `listener` until the returned function is called. */
  listen(groupCode: string, listener: (message: InboxMessage) => void): () => void;
  /** Stops listening to every code (shutdown). */
  close(): void;
}
