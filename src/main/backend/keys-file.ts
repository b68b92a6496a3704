// KEYS_FILE: access keys with their organisations, for self-hosting without the vendor backend.
// Checked in the key validity chain after AUTH_KEY and before the backend (key-validation.ts), and
// by GET /getOrgForKey. Reloaded on change without a restart.
//
// File format (README, "Access keys file"): a JSON array of entries, or { "keys": [entries] }:
//   { "key": "<the key>" | "sha256:<64 hex digits>", "organizationId": "org-1",
//     "organizationName": "Org One", "isSupporter": false, "expiresAt": "2026-12-31T23:59:59Z" }
// `expiresAt` (optional) is an ISO 8601 date-time or epoch milliseconds; null or absent = never.
// A key given as `sha256:<hex>` is the SHA-256 of the key's UTF-8 text, so the file need not hold
// the keys themselves; plain keys are hashed on load and never kept in clear.
//
// Watching: fs.watch on the file's directory (an editor that saves by writing a new file and
// renaming it over the old one replaces the inode, which a watch on the file itself would miss),
// plus stat polling every second as a fallback for filesystems without change events. A file that
// is missing or invalid on reload keeps the previous keys (logged); at start it stops the start.
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../base/config.js';
import { sha256Hex } from '../base/hashing.js';
import { KEYS_FILE_DEBOUNCE_MS as DEBOUNCE_MS, KEYS_FILE_POLL_MS as POLL_MS } from '../base/limits.js';
import type { Logger } from '../base/log.js';

export interface FileKey {
  organizationId: string;
  organizationName: string;
  isSupporter: boolean;
  /** Epoch ms; Infinity = never expires. */
  expiresAt: number;
}

export type FileKeyLookup = { expired: boolean; key: FileKey } | undefined;

const HASHED = /^sha256:([0-9a-fA-F]{64})$/;

/** Parses the file's text into digest → entry; throws an Error naming the first bad entry. */
export function parseKeysFile(text: string): Map<string, FileKey> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    // V8's message quotes the text around the fault, which may be a key: only the position is kept.
    const at = /position (\d+)/.exec((err as Error).message);
    throw new Error(at ? `not valid JSON (at position ${at[1]})` : 'not valid JSON');
  }
  const entries = Array.isArray(doc) ? doc : (doc as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(entries)) throw new Error('expected a JSON array of keys or an object with a "keys" array');
  const out = new Map<string, FileKey>();
  entries.forEach((raw: unknown, i) => {
    const where = `entry ${i}`;
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new Error(`${where}: not an object`);
    const e = raw as Record<string, unknown>;
    if (typeof e.key !== 'string' || e.key.length === 0) throw new Error(`${where}: "key" must be a non-empty string`);
    const hashed = HASHED.exec(e.key);
    const digest = hashed ? hashed[1].toLowerCase() : sha256Hex(e.key);
    const orgId = typeof e.organizationId === 'number' ? String(e.organizationId) : e.organizationId;
    if (typeof orgId !== 'string' || orgId.length === 0) throw new Error(`${where}: "organizationId" must be a non-empty string`);
    if (e.organizationName !== undefined && typeof e.organizationName !== 'string') throw new Error(`${where}: "organizationName" must be a string`);
    if (e.isSupporter !== undefined && typeof e.isSupporter !== 'boolean') throw new Error(`${where}: "isSupporter" must be true or false`);
    let expiresAt = Infinity;
    if (typeof e.expiresAt === 'number' && Number.isFinite(e.expiresAt)) expiresAt = e.expiresAt;
    else if (typeof e.expiresAt === 'string') {
      expiresAt = Date.parse(e.expiresAt);
      if (!Number.isFinite(expiresAt)) throw new Error(`${where}: "expiresAt" is not a date (ISO 8601 or epoch ms)`);
    } else if (e.expiresAt !== undefined && e.expiresAt !== null) throw new Error(`${where}: "expiresAt" must be an ISO 8601 date, epoch ms or null`);
    if (out.has(digest)) throw new Error(`${where}: the same key is listed twice`);
    out.set(digest, { organizationId: orgId, organizationName: (e.organizationName as string | undefined) ?? '', isSupporter: e.isSupporter === true, expiresAt });
  });
  return out;
}

export class KeysFile {
  private keys: Map<string, FileKey>;
  private lastText: string;
  /** The last text found invalid: the watcher fires several times per save, and one bad save is logged once. */
  private lastInvalidText: string | null = null;
  private dirWatcher: fs.FSWatcher | null = null;
  private debounce: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly file: string;
  private readonly log: Logger;
  private readonly onPoll = (cur: fs.Stats, prev: fs.Stats) => {
    if (cur.mtimeMs !== prev.mtimeMs || cur.ino !== prev.ino || cur.size !== prev.size) this.scheduleReload();
  };

  /** Reads the file once (throws ConfigError when it is missing or invalid) and starts watching it. */
  constructor(file: string, log: Logger) {
    this.file = path.resolve(file);
    this.log = log.child({ module: 'keys-file' });
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch (err) {
      throw new ConfigError(`KEYS_FILE: cannot read ${this.file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
    try {
      this.keys = parseKeysFile(text);
    } catch (err) {
      throw new ConfigError(`KEYS_FILE: ${this.file}: ${(err as Error).message}`);
    }
    this.lastText = text;
    this.log.info({ file: this.file, keys: this.keys.size }, 'access keys file loaded');
    this.watch();
  }

  /** The entry for a key, by its SHA-256 (a map lookup on the digest: nothing about the key text leaks). */
  lookup(key: string, now = Date.now()): FileKeyLookup {
    const entry = this.keys.get(sha256Hex(key));
    if (!entry) return undefined;
    return { expired: now >= entry.expiresAt, key: entry };
  }

  /** Re-reads the file now; returns whether the keys were replaced. */
  reload(): boolean {
    if (this.closed) return false;
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // Saving editors may briefly remove the file; the watcher fires again when it is back.
      this.log.warn({ file: this.file, code }, 'access keys file unreadable; keeping the previous keys');
      return false;
    }
    if (text === this.lastText || text === this.lastInvalidText) return false;
    try {
      this.keys = parseKeysFile(text);
    } catch (err) {
      this.lastInvalidText = text;
      this.log.error({ file: this.file, bytes: Buffer.byteLength(text), error: (err as Error).message }, 'access keys file invalid; keeping the previous keys');
      return false;
    }
    this.lastText = text;
    this.log.info({ file: this.file, keys: this.keys.size }, 'access keys file reloaded');
    return true;
  }

  private scheduleReload(): void {
    if (this.closed) return;
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => {
      this.debounce = null;
      this.reload();
    }, DEBOUNCE_MS);
    this.debounce.unref();
  }

  private watch(): void {
    const base = path.basename(this.file);
    try {
      this.dirWatcher = fs.watch(path.dirname(this.file), { persistent: false }, (_event, name) => {
        if (name === null || name === base || String(name) === base) this.scheduleReload();
      });
      this.dirWatcher.on('error', (err) => {
        this.log.warn({ file: this.file, error: err.message }, 'access keys file: directory watch failed; polling only');
        this.dirWatcher?.close();
        this.dirWatcher = null;
      });
    } catch (err) {
      this.log.warn({ file: this.file, error: (err as Error).message }, 'access keys file: cannot watch the directory; polling only');
    }
    fs.watchFile(this.file, { interval: POLL_MS, persistent: false }, this.onPoll);
  }

  close(): void {
    this.closed = true;
    if (this.debounce) clearTimeout(this.debounce);
    this.dirWatcher?.close();
    fs.unwatchFile(this.file, this.onPoll);
  }
}
