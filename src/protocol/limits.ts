// The fixed tunables of the shard pool (main thread) and the shard threads, in one place. They are
// design choices, not settings (crash recovery: docs/reliability.md, docs/architecture.md).

// --- Shard pool (src/main/shards/: pool.ts, batches.ts, retained-log.ts, watchdog.ts) ---

/** Commands queued in one batch window that get posted at once: a postMessage costs the same for one
 *  payload or fifty, and past this a flood would only make the batch (and its wait) longer. */
export const MAX_BATCH_COMMANDS = 512;

/** Payloads kept per shard for replay after a crash; past this (a shard that stopped snapshotting)
 *  the log is given up until the next snapshot round, instead of growing without bound. */
export const MAX_RETAINED_PAYLOADS = 200_000;

/** Crashes of one shard this close together count as a loop: the input since the last snapshot may
 *  be what kills it, so it is not applied again (CRASHES_SNAPSHOTS_ONLY, CRASHES_GIVE_UP). */
export const CRASH_WINDOW_MS = 30_000;
/** The crash (within CRASH_WINDOW_MS) from which a restarted shard gets its snapshots only. */
export const CRASHES_SNAPSHOTS_ONLY = 2;
/** The crash (within CRASH_WINDOW_MS) from which its matches are given up. */
export const CRASHES_GIVE_UP = 3;

/** A shard silent this long is hung and is ended (and restarted): it sends stats every
 *  STATS_INTERVAL_MS, so this is many missed beats, never a slow cycle. */
export const STALL_MS = 15_000;
/** How often the pool looks for silent shards: a hang is caught within 4/3 of STALL_MS. */
export const STALL_CHECK_MS = STALL_MS / 3;

/** How long a shard thread gets to exit after `exit` before it is terminated (closing its replay files). */
export const EXIT_GRACE_MS = 2000;

// --- Shard threads (src/workers/shard/) ---

/** Shard stats go to the main thread this often: the metrics' resolution, and the pool's heartbeat. */
export const STATS_INTERVAL_MS = 1000;

/** Cycle durations kept per stats message: bounded, should the stats not go out (10 per second is the norm). */
export const MAX_CYCLE_SAMPLES = 1000;

/** Dashboard summaries of the changed matches go out at most this often: the dashboard samples once a
 *  second, and frames (every 100 ms) must not carry them. */
export const SUMMARY_INTERVAL_MS = 500;

/** After a `frame_texts` request (the main thread needed a frame text), a match's frames carry their text for
 *  this many frames (5 s at 10 frames/s): overlays that need every frame's text (long polling, no
 *  deflate, no context takeover) get it without a round trip per frame; the main thread renews the
 *  hold while they use it (main/matches/frame-texts.ts). */
export const FRAME_TEXT_HOLD_FRAMES = 50;

/** Distinct envelope types counted in the stats; further names count as 'other': types are the
 *  client's choice, and each is a metrics label. */
export const MAX_TYPE_NAMES = 64;
/** What a counted type name may look like (every real type does); anything else counts as 'other'. */
export const TYPE_NAME = /^[a-z_]{1,40}$/;

/** Distinct (reason, type) drops logged per match: types are the client's choice, so past this each
 *  reason is logged once more at most (the counts go on). */
export const MAX_LOGGED_DROPS = 64;
/** Longest envelope type written to a drop log line (the rest is cut). */
export const MAX_LOGGED_TYPE = 64;
