// OutputDelayStore: group code → the match's output delay in seconds (README, "Output delay";
// output-delay/output-delays.ts keeps each process's synchronous view of it). Operator data: it
// outlives the process (the embedded default writes DATA_DIR/output-delays.json atomically; Redis
// shares it between nodes, so a delay set through any node holds on the node that runs the match).
// A revision that moves with every write lets a view read the whole map again only when it changed.
// Adapters: output-delay/adapters/data-dir/output-delay-store.ts, output-delay/adapters/redis/output-delay-store.ts.
// Contract: test/main/output-delay/output-delay-store.contract.ts.

export interface OutputDelayStore {
  /** Every code with a delay (seconds > 0). */
  all(): Promise<Record<string, number>>;
  /** Sets a code's delay (0 removes it). False, and nothing written, when the code has none yet and `max` codes have one. */
  set(groupCode: string, seconds: number, max: number): Promise<boolean>;
  /** A number that changes whenever a delay is set or removed. */
  revision(): Promise<number>;
  close(): void;
}
