// An admitted event of an ingestion socket (one its budget let through: backlog.ts), to its handler:
// the two logons (logon.ts) and the payload check of the two data events (payload-check.ts). Exactly
// one argument; a handler that throws is logged and counted (socket.io runs handlers in
// process.nextTick: an exception would end the process). The backlog hands events here, not back
// to the listener (server.ts), so an event's path through ingest/ runs one way.
import type { PayloadCheck } from './payload-check.js';
import type { Logons } from './logon.js';
import type { SocketReplies, SocketState } from './socket-state.js';

export class IngestDispatch {
  constructor(private readonly logons: Logons, private readonly data: PayloadCheck, private readonly replies: SocketReplies) {}

  readonly handle = (state: SocketState, event: string, args: unknown[]): void => {
    if (event === 'other') return this.replies.drop(state, 'unknown_event');
    if (args.length !== 1) return this.replies.drop(state, 'bad_arguments');
    const payload = args[0];
    try {
      const pending = event === 'obs_logon' ? this.logons.observer(state, payload)
        : event === 'aux_logon' ? this.logons.auxiliary(state, payload)
        : event === 'obs_data' ? this.data.observer(state, payload)
        : this.data.auxiliary(state, payload);
      if (pending) pending.catch((err: unknown) => this.replies.handlerFailed(state, event, err));
    } catch (err) {
      this.replies.handlerFailed(state, event, err);
    }
  };
}
