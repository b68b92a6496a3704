// A fresh install must be usable: without AUTH_KEY and without a backend, an access key is
// generated once, kept in the data directory, and printed in the start banner.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config.js';
import { ensureDataDir, writePrivateFile } from './data-dir.js';

export type AuthKeySource = 'configured' | 'generated' | 'reused' | 'none';

export function resolveAuthKey(config: Config): { key: string; source: AuthKeySource } {
  if (config.AUTH_KEY) return { key: config.AUTH_KEY, source: 'configured' };
  if (!config.REQUIRE_AUTH_KEY || config.USE_BACKEND) return { key: '', source: 'none' };
  const file = path.join(ensureDataDir(config.DATA_DIR), 'auth-key');
  if (fs.existsSync(file)) {
    const key = fs.readFileSync(file, 'utf8').trim();
    if (key) return { key, source: 'reused' };
  }
  const key = crypto.randomBytes(18).toString('base64url');
  writePrivateFile(file, key + '\n');
  return { key, source: 'generated' };
}
