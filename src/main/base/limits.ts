// The main thread's fixed limits and intervals, each with why it has its value. Values an operator
// may need to change are settings instead (each room's settings.ts, assembled in config.ts, and
// documented in the README); these follow from the protocol, the clients or the design and are not
// meant to be tuned. (The shard pool's and the shard threads' own constants live in src/protocol/.)
export { MAX_GROUP_CODE_LENGTH } from '../../schemas/logon.js';

// --- Sockets (both Socket.IO listeners) ---

/** Messages below this size are not deflated: compression costs more than it saves on small ones (Socket.IO's default). */
export const DEFLATE_THRESHOLD_BYTES = 1024;
/** uWS closes a socket silent this long; Engine.IO's own heartbeat (PING_INTERVAL_MS) normally ends dead ones first. */
export const UWS_IDLE_TIMEOUT_S = 120;
/** Idle-socket sweeps run every third of IDLE_SOCKET_TIMEOUT_MS, but not more often than this (timer cost) ... */
export const IDLE_SWEEP_MIN_MS = 50;
/** ... nor less often than this (an idle socket lingers at most this long past its timeout). */
export const IDLE_SWEEP_MAX_MS = 5000;
/** The idle sweep interval for a timeout. */
export const idleSweepMs = (timeoutMs: number): number => Math.max(IDLE_SWEEP_MIN_MS, Math.min(IDLE_SWEEP_MAX_MS, Math.floor(timeoutMs / 3)));
/** Longest client address written to a log (an IPv6 address with zone id fits; longer forwarded text is not an address). */
export const MAX_LOGGED_ADDRESS_LENGTH = 64;

// --- Ingestion (5100) ---

/** service_keepalive interval: keeps each client's connection-state-recovery offset fresh (docs/client-contract.md 1.5 item 4). */
export const INGEST_KEEPALIVE_MS = 30_000;
/** uWS send buffer per ingestion socket: acks and keepalives are tiny; only a client that stopped reading fills it. */
export const INGEST_SEND_BUFFER_BYTES = 1024 * 1024;
/** Heartbeat of the main thread: a beat late by more than one interval is a stall of the thread itself. */
export const STALL_BEAT_MS = 50;
/** For this long after a stall, a socket's budget may also hold what its rate gave over the stall. */
export const STALL_CREDIT_MS = 2000;
/** Backlogs are forwarded every 1000 / INGEST_RATE_PER_SOCKET ms (one token's time), but not more often than this (timer cost) ... */
export const BACKLOG_DRAIN_MIN_MS = 5;
/** ... nor less often than this (a backlog moves at least 20 times a second). */
export const BACKLOG_DRAIN_MAX_MS = 50;
/** A session lookup the store did not answer is asked again after SESSION_LOOKUP_RETRY_MS, doubling up to this (a Sentinel promotion takes ~2–3 s). */
export const LOOKUP_RETRY_MAX_MS = 2000;
/** Most pids parked at once by ingest/resume.ts (sockets closed before their lookup was answered; each waits RECOVERY_WINDOW_MS for its client). */
export const PARKED_LOOKUPS_MAX = 10_000;
/** Longest session id (socket.io pid, 20 characters in practice) looked up: longer ones are not socket.io's. */
export const MAX_SESSION_ID_LENGTH = 256;

// --- Broadcast (5200) ---

/** A long-polling overlay with this many packets not yet fetched is skipped (it gets the latest frame once it fetched them). */
export const MAX_POLLING_PACKETS = 4;
/** How often overlays skipped as slow are checked for having drained. */
export const STALE_CHECK_MS = 50;
/** A skipped WebSocket overlay counts as drained below this share of FRONTEND_MAX_BUFFERED_BYTES (1/4: room for a few frames). */
export const DRAINED_DIVISOR = 4;
/** An overlay sends one `logon` per connection; one that sends this many events is closed. */
export const MAX_OVERLAY_EVENTS = 20;
/** At close, connections whose peer does not complete the WebSocket closing handshake are cut after this (ws waits 30 s). */
export const BROADCAST_CLOSE_GRACE_MS = 1000;

// --- Matches ---

/** How long an operator's force-end waits for the owning shard to confirm the removal (it answers within a cycle). */
export const FORCE_END_TIMEOUT_MS = 5000;

// --- REST and admin ---

/** Longest path plus query a REST route takes (414 above; uWS answers a bare 431 only past its 64 KiB header limit). */
export const MAX_URL_LENGTH = 8192;
/** Preview codes (docs/interface.md 2.9): six characters of CODE_ALPHABET. */
export const PREVIEW_CODE_LENGTH = 6;
/** Random codes tried before giving up on a free one (34^6 codes: a collision is already rare at 10,000 previews). */
export const PREVIEW_CODE_ATTEMPTS = 8;
/** Longest admin token looked at (tokens are ≥ 16 characters; nothing longer is one). */
export const MAX_ADMIN_TOKEN_LENGTH = 1024;
/** The dashboard samples its counters once a second (frames/s chart) and pushes at most one update a second. */
export const DASHBOARD_SAMPLE_MS = 1000;
/** A dashboard's event stream tells the browser to reconnect after this (EventSource `retry`) when it drops. */
export const DASHBOARD_RECONNECT_MS = 2000;
/** Frames/s history kept for the chart: 5 minutes at one point a second. */
export const DASHBOARD_HISTORY_POINTS = 300;
/**
 * The shards build dashboard summaries only while someone watches: an open dashboard, or for this
 * long after a GET /admin/matches (a client that polls keeps them on without a round trip each time).
 */
export const SUMMARY_LEASE_MS = 10_000;
/** How long turning the summaries on waits for the shards' answer (a restarting shard does not hold the dashboard up). */
export const SUMMARY_WAIT_MS = 2000;
/** Metrics requests: a scraper that has not sent its request, or not read the answer, within this is cut. */
export const METRICS_REQUEST_TIMEOUT_MS = 10_000;

// --- Outbound calls and access keys ---

/** Largest response body read from any outbound peer (real answers are a few KB; the support packages list the most). */
export const MAX_OUTBOUND_RESPONSE_BYTES = 8 * 1024 * 1024;
/** Longer access keys are refused without asking anyone: no real key is this long. */
export const MAX_KEY_LENGTH = 1024;
/** KEYS_FILE: stat polling interval, the fallback for filesystems without change events. */
export const KEYS_FILE_POLL_MS = 1000;
/** KEYS_FILE: changes within this are read once (editors write a file in several steps). */
export const KEYS_FILE_DEBOUNCE_MS = 50;

// --- Shutdown ---

/** Of SHUTDOWN_TIMEOUT_MS, this much is kept for closing the listeners after the matches were persisted or completed ... */
export const SHUTDOWN_CLOSE_MARGIN_MS = 1000;
/** ... but the matches get at least this long. */
export const SHUTDOWN_MIN_DRAIN_MS = 200;
/** The shards' own drain (pending frames, snapshots, final frames) waits at least this long for their answers. */
export const SHARD_DRAIN_MIN_MS = 100;
