// The one clock a shard's engine is given. Live: the receive time stamped by the main thread.
// TRUST_REPLAY_TIMESTAMPS (replays and tests only): the recorded `timestamp` of each message, so
// a replay at any speed yields the state the live match had.
export interface MatchClock {
  /** The time a message is applied at. */
  messageTime(receivedAt: number, envelope: unknown): number;
  /** The time timers advance to on a cycle tick; null when only messages move time. */
  tickTime(wallNow: number): number | null;
  /** Whether cycles move the engine timers (tickTime is never null): the live clock. */
  readonly ticks: boolean;
}

export function createClock(trustReplayTimestamps: boolean): MatchClock {
  if (!trustReplayTimestamps) {
    return { messageTime: (receivedAt) => receivedAt, tickTime: (wallNow) => wallNow, ticks: true };
  }
  return {
    messageTime(receivedAt, envelope) {
      const ts = (envelope as { timestamp?: unknown } | null)?.timestamp;
      return typeof ts === 'number' && Number.isFinite(ts) && ts > 0 ? ts : receivedAt;
    },
    tickTime: () => null,
    ticks: false,
  };
}
