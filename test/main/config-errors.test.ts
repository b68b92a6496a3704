// Configuration errors (src/main/base/config.ts, README "Configuration"): an invalid value stops the
// start with one line naming the variable. Every setting that validates refuses each kind of bad
// value with a one-line ConfigError that starts with its name; the real entry (node
// dist/main/index.js) prints that line, `configuration error: …`, on stderr, prints no banner,
// listens on nothing and exits with code 2. A start that fails later (a port in use) exits 1.
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, SETTINGS } from '../../src/main/base/config.js';
import { runEntry, testEnv } from '../helpers/service-process.js';

type Name = keyof typeof SETTINGS;
const names = Object.keys(SETTINGS) as Name[];

/** Values no validating setting accepts, by the kind of parser (booleans, integers, URLs, enums, ranges, tokens). */
const BAD = ['maybe', '12a', '1.5', '-1', '99999999999', ' ', 'ftp://example.org', 'not a url', 'http://', '>>> nope', 'short', 'bad id:0123456789abcdef0123'];

/** The setting's own check of a (non-empty) value; loadConfig adds the checks across settings. */
function errorOf(name: Name, raw: string): ConfigError | undefined {
  try {
    (SETTINGS[name].parse as (raw: string, name: string) => unknown)(raw, name);
    return undefined;
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err;
  }
}

describe('invalid settings', () => {
  it('each refusal is one line that starts with the variable and names what was expected (and, unless secret, what was given)', () => {
    const validating = new Set<Name>();
    for (const name of names) {
      for (const raw of BAD) {
        const err = errorOf(name, raw);
        if (!err) continue;
        validating.add(name);
        expect(err.message, `${name}=${JSON.stringify(raw)}`).toMatch(new RegExp(`^${name}: \\S`));
        expect(err.message.includes('\n'), `${name}: one line`).toBe(false);
        // Secret, or may hold one (a Redis URL can carry a password, WEBHOOKS the endpoints' secrets): the value is never echoed.
        if (name === 'ADMIN_TOKEN' || name === 'REDIS_URL' || name === 'EVENTS_READ_TOKEN' || name === 'WEBHOOKS') { if (raw.trim().length > 3) expect(err.message).not.toContain(raw.trim()); }
        else expect(err.message, `${name}=${JSON.stringify(raw)}`).toContain(`got ${JSON.stringify(raw)}`);
      }
    }
    // Every boolean, number, URL, enum and range setting validates; free text (paths, names, tokens) does not.
    for (const name of names) {
      const def = SETTINGS[name].def as unknown;
      if (typeof def === 'boolean' || typeof def === 'number') expect(validating.has(name), name).toBe(true);
    }
    for (const name of ['BACKEND_URL', 'SUPPORTER_CHECK_URL', 'STATS_BACKEND_URL', 'PLAYERCAM_URL', 'TEBEX_BASE_URL', 'DISCORD_OAUTH_URL', 'DISCORD_USER_URL', 'SPECTRA_CLIENT_DEEPLINK', 'LOG_LEVEL', 'LOG_FORMAT', 'FRAME_SERIALIZER', 'COMPATIBLE_CLIENT_RANGE', 'ADMIN_TOKEN', 'REDIS_URL', 'REDIS_KEY_PREFIX', 'NODE_ID'] as Name[]) {
      expect(validating.has(name), name).toBe(true);
    }
    expect(validating.has('DATA_DIR')).toBe(false);
  });

  it('an empty value means the default', () => {
    expect(loadConfig({ INGEST_PORT: '', INSECURE: '', LOG_LEVEL: '' })).toMatchObject({ INGEST_PORT: 5100, INSECURE: false, LOG_LEVEL: 'info' });
  });

  it.each([
    ['a boolean', 'INSECURE', 'maybe', 'INSECURE: expected true or false, got "maybe"'],
    ['an integer', 'INGEST_PORT', '51oo', 'INGEST_PORT: expected an integer from 0 to 65535, got "51oo"'],
    ['an integer out of range', 'RECOVERY_WINDOW_MS', '1000', 'RECOVERY_WINDOW_MS: expected an integer from 120000 to 3600000, got "1000"'],
    ['an http(s) URL', 'BACKEND_URL', 'ftp://backend.example', 'BACKEND_URL: expected an http:// or https:// URL, got "ftp://backend.example"'],
    ['an absolute URL', 'SPECTRA_CLIENT_DEEPLINK', 'client/oauth', 'SPECTRA_CLIENT_DEEPLINK: expected an absolute URL, got "client/oauth"'],
    ['one of a list', 'LOG_LEVEL', 'loud', 'LOG_LEVEL: expected one of fatal, error, warn, info, debug, trace, silent, got "loud"'],
    ['a semver range', 'COMPATIBLE_CLIENT_RANGE', 'latest please', 'COMPATIBLE_CLIENT_RANGE: expected a semver range such as ">=0.3.0 <0.4.0", got "latest please"'],
  ])('%s: the exact message', (_kind, name, raw, message) => {
    expect(errorOf(name as Name, raw)?.message).toBe(message);
  });

  it('admin tokens: too short, a bad id, an id used twice; the message never shows the token', () => {
    expect(errorOf('ADMIN_TOKEN', 'ops:short')?.message).toBe('ADMIN_TOKEN: every token must be at least 16 characters without spaces or commas (value not shown)');
    expect(errorOf('ADMIN_TOKEN', 'bad id:0123456789abcdef0123')?.message).toBe("ADMIN_TOKEN: a token id (before ':') must be 1–64 of A–Z a–z 0–9 _ . - (value not shown)");
    expect(errorOf('ADMIN_TOKEN', 'ops:0123456789abcdef0123,ops:fedcba9876543210fedc')?.message).toBe('ADMIN_TOKEN: token id ops is used twice');
  });

  it('settings that go together: SERVER_CERT with SERVER_KEY, USE_BACKEND with BACKEND_URL', () => {
    expect(() => loadConfig({ SERVER_CERT: '/tmp/cert.pem' })).toThrow(new ConfigError('SERVER_KEY: must be set together with SERVER_CERT'));
    expect(() => loadConfig({ SERVER_KEY: '/tmp/key.pem' })).toThrow(new ConfigError('SERVER_CERT: must be set together with SERVER_KEY'));
    expect(() => loadConfig({ USE_BACKEND: 'true' })).toThrow(new ConfigError('BACKEND_URL: required when USE_BACKEND=true'));
  });

  it('the webhook back-off: its longest wait is at least its first', () => {
    expect(() => loadConfig({ WEBHOOK_RETRY_FIRST_MS: '5000', WEBHOOK_RETRY_MAX_MS: '1000' })).toThrow(new ConfigError('WEBHOOK_RETRY_MAX_MS: must be at least WEBHOOK_RETRY_FIRST_MS (5000)'));
    expect(() => loadConfig({ WEBHOOK_RETRY_FIRST_MS: '50' })).toThrow(/^WEBHOOK_RETRY_FIRST_MS: /);
    expect(loadConfig({})).toMatchObject({ WEBHOOK_RETRY_FIRST_MS: 1000, WEBHOOK_RETRY_MAX_MS: 30_000 });
    expect(loadConfig({ WEBHOOK_RETRY_FIRST_MS: '100', WEBHOOK_RETRY_MAX_MS: '100' })).toMatchObject({ WEBHOOK_RETRY_FIRST_MS: 100, WEBHOOK_RETRY_MAX_MS: 100 });
  });
});

describe('a default that depends on another setting', () => {
  it('SHARD_BATCH_MS is 2 with shard threads, 0 with the shard on the main thread (SHARD_WORKERS=0); a value given is kept', () => {
    expect(loadConfig({ SHARD_WORKERS: '1' }).SHARD_BATCH_MS).toBe(2);
    expect(loadConfig({ SHARD_WORKERS: '0' }).SHARD_BATCH_MS).toBe(0);
    expect(loadConfig({ SHARD_WORKERS: '0', SHARD_BATCH_MS: '' }).SHARD_BATCH_MS).toBe(0);
    expect(loadConfig({ SHARD_WORKERS: '0', SHARD_BATCH_MS: '5' }).SHARD_BATCH_MS).toBe(5);
    expect(loadConfig({ SHARD_WORKERS: '2', SHARD_BATCH_MS: '0' }).SHARD_BATCH_MS).toBe(0);
  });
});

describe('the entry with a bad environment (node dist/main/index.js)', () => {
  it.each([
    ['INGEST_PORT', { INGEST_PORT: 'eighty' }, 'configuration error: INGEST_PORT: expected an integer from 0 to 65535, got "eighty"'],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }, 'configuration error: LOG_LEVEL: expected one of fatal, error, warn, info, debug, trace, silent, got "loud"'],
    ['ADMIN_TOKEN', { ADMIN_TOKEN: 'tiny-secret' }, 'configuration error: ADMIN_TOKEN: every token must be at least 16 characters without spaces or commas (value not shown)'],
    ['USE_BACKEND', { USE_BACKEND: 'true' }, 'configuration error: BACKEND_URL: required when USE_BACKEND=true'],
  ])('%s: one line on stderr, no banner, exit code 2', async (_name, env, line) => {
    const { code, stdout, stderr } = await runEntry({ ...testEnv(), ...env });
    expect(code).toBe(2);
    expect(stderr).toBe(`${line}\n`);
    expect(stdout).toBe('');
    expect(stderr).not.toContain('tiny-secret');
  });

  it('a start that fails after the configuration (its port is taken) exits 1 with "start failed"', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const { code, stderr } = await runEntry({ ...testEnv(), REST_PORT: String(port) });
      expect(code).toBe(1);
      expect(stderr).toMatch(new RegExp(`^start failed: .*${port}`));
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  });
});
