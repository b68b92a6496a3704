// The one place that talks to Redis's client library (ioredis; why ioredis: docs/architecture.md,
// "Scale-out on Redis"). A node holds two connections: `cmd` for commands, scripts and publishing,
// `sub` in subscriber mode. Every Redis adapter (adapters/redis/*) uses this object, its key
// layout (keys.ts) and their concern's Lua scripts (`scripts`, defined on `cmd`), never ioredis
// directly: `cmd` is typed by this module (RedisClient), with only the commands the adapters use.
//
// Redis trouble must not stop a node (docs/reliability.md): commands fail fast while Redis is
// unreachable (no offline queue, REDIS_TIMEOUT_MS per command) and the adapters decide what that
// means; both connections reconnect on their own, and the subscriber subscribes to every channel
// again (resubscribe below). Pub/sub
// can stop delivering silently (after a failover, a proxy that dropped the subscriber): a probe
// publishes to this node's own channel every REDIS_PROBE_INTERVAL_MS and, when 3 in a row do not
// come back, the subscriber is reconnected. `up` is what /status and the metrics report.
//
// With REDIS_SENTINELS both connections find the primary through the Sentinels (ioredis's sentinel
// mode: it asks them at every (re)connection and checks the role of what it reached; a connection
// to a demoted primary reconnects at its first READONLY), so a node follows a failover by itself.
// `replicated()` is the WAIT the ownership writes use then (docs/reliability.md, "Redis failover").
import { Redis, type RedisOptions } from 'ioredis';
import type { SentinelAddress } from '../base/config.js';
import type { Logger } from '../base/log.js';
import { redisKeys, type RedisKeys } from './keys.js';

export interface RedisConnectionOptions {
  url: string;
  prefix: string;
  nodeId: string;
  timeoutMs: number;
  probeIntervalMs: number;
  log: Logger;
  /** REDIS_SENTINELS (empty: REDIS_URL is the server), REDIS_SENTINEL_NAME, REDIS_SENTINEL_PASSWORD. */
  sentinels?: readonly SentinelAddress[];
  sentinelName?: string;
  sentinelPassword?: string;
}

export type MessageHandler = (message: Buffer) => void;

/** The command connection as the adapters see it: the plain commands they use (their Lua scripts: `scripts`). */
export type RedisClient = Pick<Redis, 'status' | 'ping' | 'get' | 'mget' | 'exists' | 'pttl' | 'hget' | 'hgetBuffer' | 'hmget' | 'hmgetBuffer' | 'smembers' | 'scan' | 'pipeline' | 'spublish' | 'xrange' | 'hgetall' | 'zrem'>;

/** A Lua script's arguments as the adapters pass them. */
export type Arg = string | number;
export type Flag = '0' | '1';
/** One Lua script: its text and number of keys (absent: the caller gives it first, for a variable number of keys). */
export interface ScriptDefinition { numberOfKeys?: number; lua: string }
/** A concern's scripts by the name its adapter calls them (each concern's `adapters/redis/lua/*.ts`). */
export type ScriptDefinitions<T> = Record<keyof T, ScriptDefinition>;
/** The subscriber connection, for its state only (subscriptions go through `subscribe`). */
export type RedisSubscriber = Pick<Redis, 'status' | 'ping'>;

/** Probes that may go unanswered before the subscriber is reconnected. */
const PROBE_MISSES = 3;

/** ioredis options from REDIS_URL (unix:///path becomes a socket path; ioredis reads redis:// and rediss:// itself). */
export function connectionTarget(url: string): string {
  const u = new URL(url);
  return u.protocol === 'unix:' ? decodeURIComponent(u.pathname) + u.search : url;
}

/** Where REDIS_URL points, without credentials (for logs and errors). */
export function describeTarget(url: string, sentinels: readonly SentinelAddress[] = [], name = ''): string {
  if (sentinels.length) return `sentinel ${name} via ${sentinels.map((a) => (a.host.includes(':') ? `[${a.host}]` : a.host) + ':' + a.port).join(',')}`;
  const u = new URL(url);
  return u.protocol === 'unix:' ? `unix:${u.pathname}` : `${u.protocol}//${u.hostname}:${u.port || 6379}`;
}

/** ioredis's sentinel options: the Sentinels and the group name, and from REDIS_URL only its credentials, database and TLS. */
export function sentinelOptions(options: RedisConnectionOptions): RedisOptions {
  const u = new URL(options.url);
  const db = Number(u.pathname.slice(1) || 0);
  return {
    sentinels: options.sentinels!.map((a) => ({ host: a.host, port: a.port })),
    name: options.sentinelName,
    ...(options.sentinelPassword ? { sentinelPassword: options.sentinelPassword } : {}),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(Number.isInteger(db) && db > 0 ? { db } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {}, enableTLSForSentinelMode: true } : {}),
    sentinelCommandTimeout: options.timeoutMs,
  };
}

export class RedisConnection {
  readonly cmd: RedisClient;
  /** The script sets defined on `cmd` so far (`scripts`). */
  private readonly defined = new WeakSet<object>();
  readonly sub: RedisSubscriber;
  private readonly client: Redis;
  private readonly subscriber: Redis;
  readonly keys: RedisKeys;
  readonly nodeId: string;
  private readonly log: Logger;
  /** Subscribed channels: their handlers, and whether the channel is sharded (SSUBSCRIBE). */
  private readonly handlers = new Map<string, { handlers: Set<MessageHandler>; sharded: boolean }>();
  private readonly statusListeners = new Set<(up: boolean) => void>();
  private upValue = false;
  private probeSent = 0;
  private probeSeen = 0;
  private probeTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private lastErrorLog = 0;
  private lastWaitLog = 0;

  private constructor(private readonly options: RedisConnectionOptions) {
    this.log = options.log.child({ module: 'redis' });
    this.nodeId = options.nodeId;
    this.keys = redisKeys(options.prefix);
    const common: RedisOptions = {
      lazyConnect: true,
      connectTimeout: options.timeoutMs,
      // Reconnect quickly, then every second: a restarted Redis is back within a second of its start.
      retryStrategy: (times) => Math.min(100 * times, 1000),
      // ioredis 6 speaks RESP3 by default; RESP2 keeps pub/sub on its own connection, as we use it.
      protocol: 2,
      // A primary demoted to a replica (a Sentinel or managed failover that left it running) answers
      // writes with READONLY: reconnect, which finds the new primary (through the Sentinels, or
      // behind the service's one name).
      reconnectOnError: (err) => err.message.startsWith('READONLY'),
    };
    const open = (extra: RedisOptions) => (options.sentinels?.length
      ? new Redis({ ...sentinelOptions(options), ...common, ...extra })
      : new Redis(connectionTarget(options.url), { ...common, ...extra }));
    // Commands fail at once while Redis is unreachable, and after REDIS_TIMEOUT_MS when it stalls.
    this.client = open({ enableOfflineQueue: false, commandTimeout: options.timeoutMs, maxRetriesPerRequest: 1 });
    // The subscriber keeps its subscriptions queued while disconnected. After a reconnection it
    // subscribes again to every channel itself (`resubscribe`), rather than through ioredis's
    // autoResubscribe, whose calls have no rejection handler: a connection closed during one would
    // be an unhandled rejection (the process's end).
    this.subscriber = open({ enableOfflineQueue: true, maxRetriesPerRequest: null, autoResubscribe: false });
    this.subscriber.on('ready', () => this.resubscribe());
    this.cmd = this.client as unknown as RedisClient;
    this.sub = this.subscriber;
    for (const client of [this.client, this.subscriber]) {
      client.on('error', (err: Error) => this.onError(err));
      for (const ev of ['ready', 'close', 'end', 'reconnecting']) client.on(ev, () => this.recompute());
    }
    this.subscriber.on('messageBuffer', (channel: Buffer, message: Buffer) => this.dispatch(channel, message));
    this.subscriber.on('smessageBuffer', (channel: Buffer, message: Buffer) => this.dispatch(channel, message));
  }

  /** Connects both clients; throws (naming REDIS_URL's target, never its credentials) when Redis does not answer in time. */
  static async open(options: RedisConnectionOptions): Promise<RedisConnection> {
    const conn = new RedisConnection(options);
    try {
      await Promise.all([conn.client.connect(), conn.subscriber.connect()]);
      await conn.client.ping();
    } catch (err) {
      conn.close();
      throw new Error(`${options.sentinels?.length ? 'REDIS_SENTINELS' : 'REDIS_URL'}: cannot reach Redis at ${describeTarget(options.url, options.sentinels, options.sentinelName)} (${(err as Error).message})`);
    }
    await conn.subscribe(conn.keys.probeChannel(conn.nodeId), () => { conn.probeSeen = conn.probeSent; conn.recompute(); });
    // One sharded subscription for the connection's life: SUNSUBSCRIBE answers the count of sharded
    // channels left, and ioredis 6 leaves subscriber mode when it is 0 although plain ones remain, so
    // a node whose last match ended dropped every control and directory message ("Command queue state
    // error") until the probe reconnected it. With this one, that count never reaches 0.
    await conn.subscribe(`${conn.keys.probeChannel(conn.nodeId)}:sharded`, () => undefined, true);
    conn.upValue = true;
    conn.probeTimer = setInterval(() => conn.probe(), options.probeIntervalMs);
    conn.probeTimer.unref();
    conn.log.info({ target: describeTarget(options.url, options.sentinels, options.sentinelName), nodeId: options.nodeId, prefix: options.prefix }, 'redis connected');
    return conn;
  }

  /** Both connections ready and the last probes came back. */
  get up(): boolean {
    return this.upValue;
  }

  /** Called with the new value whenever `up` changes. */
  onStatus(listener: (up: boolean) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  /**
   * Messages of `channel` to `handler` until the returned function is called. `sharded`: a
   * per-match channel (SSUBSCRIBE/SPUBLISH, Redis ≥ 7: a cluster routes it to one shard). The
   * first handler of a channel subscribes, the last one's removal unsubscribes. Resolves once
   * Redis confirmed the subscription (or at once when the channel was subscribed already).
   */
  subscribe(channel: string, handler: MessageHandler, sharded = false): Promise<void> & { unsubscribe: () => void } {
    let entry = this.handlers.get(channel);
    let confirmed: Promise<unknown> = Promise.resolve();
    if (!entry) {
      entry = { handlers: new Set(), sharded };
      this.handlers.set(channel, entry);
      confirmed = this.subscribeOne(channel, sharded);
    }
    entry.handlers.add(handler);
    let active = true;
    const unsubscribe = () => {
      if (!active) return;
      active = false;
      const current = this.handlers.get(channel);
      if (!current) return;
      current.handlers.delete(handler);
      if (current.handlers.size > 0 || this.closed) return;
      this.handlers.delete(channel);
      (sharded ? this.subscriber.sunsubscribe(channel) : this.subscriber.unsubscribe(channel)).catch(() => undefined);
    };
    return Object.assign(confirmed.then(() => undefined), { unsubscribe });
  }

  /**
   * With Sentinel: waits (WAIT 1, at most half of REDIS_TIMEOUT_MS) until a replica has every write
   * this connection made so far, so that a failover right after cannot undo it; false (logged, at
   * most once per 10 s) when none acknowledged in time. Without Sentinel: true at once (a lone
   * server has no replica to wait for).
   */
  async replicated(): Promise<boolean> {
    if (!this.options.sentinels?.length) return true;
    let acked = 0;
    try {
      acked = await this.client.wait(1, Math.max(1, Math.floor(this.options.timeoutMs / 2)));
    } catch { /* unreachable: as unacknowledged */ }
    if (acked >= 1) return true;
    const now = Date.now();
    if (now - this.lastWaitLog >= 10_000) {
      this.lastWaitLog = now;
      this.log.warn('redis write not acknowledged by a replica in time (a failover now could undo it)');
    }
    return false;
  }

  /** Publishes; false when Redis is unreachable (nothing is queued: callers decide). */
  publish(channel: string, message: string | Buffer, sharded = false): Promise<boolean> {
    const sent = sharded ? this.client.spublish(channel, message) : this.client.publish(channel, message);
    return sent.then(() => true, () => false);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.probeTimer) clearInterval(this.probeTimer);
    this.statusListeners.clear();
    this.client.disconnect();
    this.subscriber.disconnect();
  }

  private subscribeOne(channel: string, sharded: boolean): Promise<unknown> {
    return (sharded ? this.subscriber.ssubscribe(channel) : this.subscriber.subscribe(channel)).catch((err: Error) => {
      if (!this.closed) this.log.warn({ channel, error: err.message }, 'redis subscribe failed (retried on reconnect)');
    });
  }

  /** The subscriber is (re)connected: every channel again (a first connection has none yet). */
  private resubscribe(): void {
    if (this.closed) return;
    for (const [channel, entry] of this.handlers) void this.subscribeOne(channel, entry.sharded);
  }

  private dispatch(channel: Buffer, message: Buffer): void {
    const set = this.handlers.get(channel.toString())?.handlers;
    if (!set) return;
    for (const handler of set) {
      try {
        handler(message);
      } catch (err) {
        this.log.error({ channel: channel.toString(), error: (err as Error).message }, 'redis message handler failed');
      }
    }
  }

  private probe(): void {
    if (this.client.status !== 'ready') return this.recompute();
    if (this.probeSent - this.probeSeen >= PROBE_MISSES && this.subscriber.status === 'ready') {
      // Connected, subscribed, and still nothing comes back: reconnect the subscriber (it re-subscribes).
      this.log.warn({ missed: this.probeSent - this.probeSeen }, 'redis pub/sub probe not delivered; reconnecting the subscriber');
      this.probeSeen = this.probeSent;
      this.subscriber.disconnect(true);
    }
    this.probeSent++;
    void this.publish(this.keys.probeChannel(this.nodeId), String(this.probeSent));
    this.recompute();
  }

  private recompute(): void {
    if (this.closed) return;
    const up = this.client.status === 'ready' && this.subscriber.status === 'ready' && this.probeSent - this.probeSeen < PROBE_MISSES;
    if (up === this.upValue) return;
    this.upValue = up;
    this.log[up ? 'info' : 'warn']({ cmd: this.client.status, sub: this.subscriber.status }, up ? 'redis reachable again' : 'redis unreachable');
    for (const listener of this.statusListeners) listener(up);
  }

  private onError(err: Error): void {
    // ioredis reports every failed reconnection attempt: one line per 10 s is enough.
    const now = Date.now();
    if (now - this.lastErrorLog < 10_000) return;
    this.lastErrorLog = now;
    this.log.warn({ error: err.message }, 'redis connection error');
  }
  /**
   * The command connection with a concern's Lua scripts (its `adapters/redis/lua/*.ts`), defined on it
   * the first time (ioredis's defineCommand: EVALSHA, loaded again by itself after NOSCRIPT, as after
   * a restarted Redis). Each Redis adapter asks for its own; no registry knows them all.
   */
  scripts<T>(definitions: ScriptDefinitions<T>): RedisClient & T {
    if (!this.defined.has(definitions)) {
      for (const [name, definition] of Object.entries<ScriptDefinition>(definitions)) this.client.defineCommand(name, definition);
      this.defined.add(definitions);
    }
    return this.client as unknown as RedisClient & T;
  }
}
