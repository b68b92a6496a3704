// One webhook endpoint's delivery state (delivery.ts runs it): its lanes (one per match), its
// signer and HTTP agent, its back-off and batch timers, its counters (stats).
import type { OutboundReport } from '../backend/index.js';
import { type Signer, type WebhookPost, webhookPoster, webhookSigner } from './post.js';
import type { WebhookEndpoint } from './endpoints.js';
import type { MatchLog } from './match-log.js';
import type { StoredEvent } from './types.js';

export type { DeadLetter } from './record-store.js';

export interface DeliveryStats { delivered: number; failedAttempts: number; deadLettered: number; inFlight: number; waiting: number }

export interface Lane { attempts: number; firstAttemptAt: number; busy: boolean }

/** What one request carries of one match: its next events for this endpoint, in seq order. */
export interface Part { match: MatchLog; lane: Lane; events: StoredEvent[] }


export class EndpointLanes {
  readonly stats: DeliveryStats = { delivered: 0, failedAttempts: 0, deadLettered: 0, inFlight: 0, waiting: 0 };
  readonly ready = new Set<string>();
  readonly lanes = new Map<string, Lane>();
  readonly sign: Signer;
  readonly post: WebhookPost;
  readonly closePoster: () => void;
  closed = false;
  /** Failed attempts in a row (0: healthy), and the endpoint's back-off. */
  streak = 0;
  suspendedUntil = 0;
  timer: NodeJS.Timeout | undefined;
  lastError = '';
  /** A batch endpoint's pump is due (setImmediate): events stored meanwhile go in one request. */
  scheduled = false;
  /** When a batch endpoint's last request started, and the timer of its next one. */
  lastBatchAt = 0;
  batchTimer: NodeJS.Timeout | undefined;
  /**
   * A batch endpoint's batch whose request failed, as [matchKey, last seq] per match in the order
   * sent: the retry sends the same events again (each match's from its cursor to that seq), so under
   * the same webhook-id (delivery.ts, batchId); null once one succeeded.
   */
  pending: [string, number][] | null = null;

  constructor(readonly endpoint: WebhookEndpoint, readonly cursors: Record<string, number>, timeoutMs: number, report: OutboundReport | undefined) {
    this.sign = webhookSigner(endpoint.secret);
    const poster = webhookPoster(endpoint.url, timeoutMs, report);
    this.post = poster.post;
    this.closePoster = poster.close;
  }

  stop(): void {
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.batchTimer);
    this.closePoster();
  }
}
