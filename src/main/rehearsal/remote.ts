// Rehearsal requests from any node (README, "Rehearsals"; scale-out): a rehearsal runs on the node
// that claimed its group code, and any node's dashboard or admin API can steer it. A request for a
// rehearsal this node does not run goes to every node on the ControlBus (`rehearsal`); the node that
// runs it acts and answers (`rehearsal_answer`, with the request's id); the asking node waits at most
// FORCE_END_TIMEOUT_MS. In one process (no REDIS_URL) every rehearsal is local, nothing is published.
import crypto from 'node:crypto';
import { FORCE_END_TIMEOUT_MS } from '../base/limits.js';
import type { Logger } from '../base/log.js';
import { isRehearsal, type MatchDirectory } from '../matches/index.js';
import type { ControlBus, ControlMessage, RehearsalAction } from '../control/index.js';
import type { Answer, Rehearsals, RehearsalStatus } from './rehearsals.js';

export interface RehearsalControlDeps {
  rehearsals: Rehearsals;
  control: ControlBus;
  directory: Pick<MatchDirectory, 'get' | 'all'>;
  /** REDIS_URL: other nodes may run rehearsals. */
  clustered: boolean;
  log: Logger;
}

export class RehearsalControl {
  private readonly pending = new Map<string, (answer: Answer) => void>();
  private readonly unsubscribe: () => void;
  private readonly log: Logger;

  constructor(private readonly deps: RehearsalControlDeps) {
    this.log = deps.log.child({ module: 'rehearsal' });
    this.unsubscribe = deps.control.subscribe((message) => this.onControl(message));
  }

  /** An action on the rehearsal of `groupCode`, wherever it runs. */
  async act(groupCode: string, action: RehearsalAction, round: number | undefined, tokenId: string): Promise<Answer> {
    const local = await this.deps.rehearsals.act(groupCode, action, round);
    if (local) return local;
    if (!this.deps.clustered || !isRehearsal(this.deps.directory.get(groupCode))) return { status: 404, body: { error: `No rehearsal on group code ${groupCode}` } };
    return this.ask({ t: 'rehearsal', groupCode, requestId: crypto.randomUUID(), action, tokenId, ...(round !== undefined ? { round } : {}) });
  }

  /** Every rehearsal: this node's, and (scale-out) the other nodes' as they answer. */
  async list(tokenId: string): Promise<RehearsalStatus[]> {
    const out = this.deps.rehearsals.list();
    if (!this.deps.clustered) return out;
    const remote = [...this.deps.directory.all()].filter((m) => isRehearsal(m) && !this.deps.rehearsals.has(m.groupCode));
    const answers = await Promise.all(remote.map((m) => this.ask({ t: 'rehearsal', groupCode: m.groupCode, requestId: crypto.randomUUID(), action: 'status', tokenId })));
    for (const a of answers) if (a.status === 200) out.push(a.body as RehearsalStatus);
    return out;
  }

  private ask(message: Extract<ControlMessage, { t: 'rehearsal' }>): Promise<Answer> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(message.requestId);
        resolve({ status: 504, body: { error: 'The node that runs the rehearsal did not answer in time' } });
      }, FORCE_END_TIMEOUT_MS);
      this.pending.set(message.requestId, (answer) => {
        clearTimeout(timer);
        this.pending.delete(message.requestId);
        resolve(answer);
      });
      this.deps.control.publish(message).catch(() => this.pending.get(message.requestId)?.({ status: 503, body: { error: 'The shared store (Redis) is unreachable' } }));
    });
  }

  private onControl(message: ControlMessage): void {
    if (message.t === 'rehearsal_answer') {
      this.pending.get(message.requestId)?.({ status: message.status, body: message.body });
    } else if (message.t === 'rehearsal' && this.deps.rehearsals.has(message.groupCode)) {
      this.log.info({ groupCode: message.groupCode, action: message.action, tokenId: message.tokenId }, 'rehearsal request from another node');
      void this.deps.rehearsals.act(message.groupCode, message.action, message.round).then((answer) => {
        if (answer) return this.deps.control.publish({ t: 'rehearsal_answer', requestId: message.requestId, ...answer });
      }).catch((err: Error) => this.log.warn({ groupCode: message.groupCode, error: err.message }, 'rehearsal request not answered'));
    }
  }

  close(): void {
    this.unsubscribe();
  }
}
