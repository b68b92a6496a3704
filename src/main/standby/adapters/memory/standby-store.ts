// StandbyStore in memory (standby/standby-store.ts): one record per group code; every call is one
// synchronous step (atomic in this process). `changed` lets the STATE_DIR adapter write the table.
import { NO_STANDBY, type Seat, type StandbyRecord, type StandbyStore } from '../../standby-store.js';

export class MemoryStandbyStore implements StandbyStore {
  protected readonly records = new Map<string, StandbyRecord>();

  constructor(initial: Iterable<[string, StandbyRecord]> = []) {
    for (const [code, record] of initial) this.records.set(code, record);
  }

  /** After every change (the STATE_DIR adapter writes the table). */
  protected changed(): void {}

  async arm(groupCode: string, until: number): Promise<void> {
    this.records.set(groupCode, { ...(this.records.get(groupCode) ?? NO_STANDBY), armedUntil: until });
    this.changed();
  }

  async admit(groupCode: string, secretDigest: string, now: number): Promise<boolean> {
    const record = this.records.get(groupCode);
    if (!record || record.armedUntil <= now) return false;
    this.records.set(groupCode, { ...record, armedUntil: 0, secretDigest });
    this.changed();
    return true;
  }

  get(groupCode: string): StandbyRecord | undefined {
    return this.records.get(groupCode);
  }

  async setPrimary(groupCode: string, seat: Seat): Promise<void> {
    this.records.set(groupCode, { ...(this.records.get(groupCode) ?? NO_STANDBY), primary: seat });
    this.changed();
  }

  async delete(groupCode: string): Promise<void> {
    if (this.records.delete(groupCode)) this.changed();
  }

  close(): void {}
}
