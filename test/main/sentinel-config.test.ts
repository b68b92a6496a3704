// REDIS_SENTINELS, REDIS_SENTINEL_NAME, REDIS_SENTINEL_PASSWORD (src/main/base/config.ts; README,
// "Redis with Sentinel"): validated at start with one line naming the variable; the Sentinels'
// options given to ioredis carry REDIS_URL's credentials and database, never its host.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/main/base/config.js';
import { describeTarget, sentinelOptions } from '../../src/main/redis/connection.js';

describe('Sentinel settings', () => {
  it('a list of host:port (IPv6 in brackets) is read; anything else is refused with the expected form', () => {
    const c = loadConfig({ REDIS_URL: 'redis://:pw@mymaster/2', REDIS_SENTINELS: '10.0.0.5:26379, sentinel-b:26380,[fd00::7]:26381' });
    expect(c.REDIS_SENTINELS).toEqual([{ host: '10.0.0.5', port: 26379 }, { host: 'sentinel-b', port: 26380 }, { host: 'fd00::7', port: 26381 }]);
    expect(c.REDIS_SENTINEL_NAME).toBe('mymaster');
    for (const bad of ['10.0.0.5', '10.0.0.5:0', 'a:70000', 'fd00::7:26379', 'a:1,,b:2', 'a b:1']) {
      expect(() => loadConfig({ REDIS_URL: 'redis://x', REDIS_SENTINELS: bad })).toThrow(new ConfigError(`REDIS_SENTINELS: expected host:port of each Sentinel, separated by commas ([addr]:port for IPv6), got ${JSON.stringify(bad)}`));
    }
    expect(() => loadConfig({ REDIS_URL: 'redis://x', REDIS_SENTINEL_NAME: 'my master' })).toThrow(/^REDIS_SENTINEL_NAME: expected 1–64 of/);
  });

  it('REDIS_SENTINELS needs REDIS_URL (redis:// or rediss://) for the credentials, database and TLS', () => {
    const message = 'REDIS_SENTINELS: needs REDIS_URL=redis://[user:password@]<name>[/db] (or rediss://): its credentials, database and TLS; the Sentinels give the host';
    expect(() => loadConfig({ REDIS_SENTINELS: '127.0.0.1:26379' })).toThrow(new ConfigError(message));
    expect(() => loadConfig({ REDIS_SENTINELS: '127.0.0.1:26379', REDIS_URL: 'unix:///tmp/redis.sock' })).toThrow(new ConfigError(message));
  });

  it('ioredis gets the Sentinels, the group, the Sentinels\' password, and from REDIS_URL only user, password, database and TLS; logs name no secret', () => {
    const base = { url: 'rediss://app:s3cret%21@ignored-host:6390/3', prefix: 'ods:', nodeId: 'n', timeoutMs: 2000, probeIntervalMs: 2000, log: undefined as never };
    const sentinels = [{ host: '127.0.0.1', port: 26379 }, { host: 'fd00::7', port: 26380 }];
    const o = sentinelOptions({ ...base, sentinels, sentinelName: 'games', sentinelPassword: 'sentinel-pw' });
    expect(o).toMatchObject({ sentinels, name: 'games', sentinelPassword: 'sentinel-pw', username: 'app', password: 's3cret!', db: 3, enableTLSForSentinelMode: true });
    expect(o).not.toHaveProperty('host');
    expect(o).not.toHaveProperty('port');
    const described = describeTarget(base.url, sentinels, 'games');
    expect(described).toBe('sentinel games via 127.0.0.1:26379,[fd00::7]:26380');
    expect(described).not.toContain('s3cret');
  });
});
