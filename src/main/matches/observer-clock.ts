// When each match this process runs last received data from its primary observer (wherever the
// observer's socket is: here, or another node through the owner's inbox). The silent-observer flag
// reads it (admin/link-health.ts); one Map write per message.
export class ObserverClock {
  private readonly lastAt = new Map<string, number>();

  seen(groupCode: string, now: number): void {
    this.lastAt.set(groupCode, now);
  }

  /** Epoch ms of the primary's last message (0: none yet). */
  last(groupCode: string): number {
    return this.lastAt.get(groupCode) ?? 0;
  }

  forget(groupCode: string): void {
    this.lastAt.delete(groupCode);
  }
}
