// ControlBus: the operator's and the matches' control actions, each with one path, to every process
// (a match is owned by one process, its sessions' sockets can be held by any).
//
//   force_end       an operator ends a match: its owner sends the shard's `remove` (a final frame,
//                   completion with the backend, then the removal below).
//   match_removed   a match is gone (ended, inactive, force-ended, lost with its shard): its sessions
//                   ended (SessionStore.end); every process closes the sockets it holds of them, and
//                   a force-end waiting for the match resolves.
//   secret_rotated  an operator gave a match a new secret: the observer sessions that logged on with
//                   the old one ended; every process closes the sockets it holds of them.
//   rehearsal       an operator steers a rehearsal that another node runs (pause, resume, seek, stop,
//                   status): the node that runs it acts and answers with
//   rehearsal_answer  the request's id, an HTTP status and the answer's body (src/main/rehearsal).
//   observer_swap   an operator swaps a match's primary and standby observer: its owner's relay does
//                   (standby/relay.ts).
//   standby_watch   a standby window was armed, or a standby admitted, on a node that does not run the
//                   match: the owner's relay starts keeping the primary's applied messages now
//                   (standby/relay.ts), before the standby's first message reaches it.
//
// Delivery is in publish order, to every subscriber; the in-process adapter delivers synchronously,
// before publish returns. Adapters: control/adapters/memory/control-bus.ts. Contract:
// test/main/control/control-bus.contract.ts.

export type ControlMessage =
  | { t: 'force_end'; groupCode: string }
  | { t: 'match_removed'; groupCode: string; matchId: string; reason: string; sessionIds: string[] }
  | { t: 'secret_rotated'; groupCode: string; sessionIds: string[] }
  | { t: 'rehearsal'; groupCode: string; requestId: string; action: RehearsalAction; round?: number; tokenId: string }
  | { t: 'rehearsal_answer'; requestId: string; status: number; body: unknown }
  | { t: 'observer_swap'; groupCode: string }
  | { t: 'standby_watch'; groupCode: string; armedUntil: number };

export type RehearsalAction = 'pause' | 'resume' | 'seek' | 'stop' | 'status';

export type ControlListener = (message: ControlMessage) => void;

export interface ControlBus {
  /** To every subscriber, in order; resolves once delivered (or handed to the transport). */
  publish(message: ControlMessage): Promise<void>;
  subscribe(listener: ControlListener): () => void;
  close(): void;
}
