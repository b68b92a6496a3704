// The standby relay's 100 ms check runs only while some match has a relay (src/main/standby/relay.ts):
// a service without standbys is not woken ten times a second for nothing (docs/perf/message-path.md,
// "Wake-ups"). The relay's failover itself is looped in failover-harness.test.ts.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../../src/main/base/config.js';
import { createLogger } from '../../../src/main/base/log.js';
import { MemoryControlBus } from '../../../src/main/control/adapters/memory/control-bus.js';
import { MemoryStandbyStore } from '../../../src/main/standby/adapters/memory/standby-store.js';
import { StandbyRelay } from '../../../src/main/standby/relay.js';

const config = loadConfig({});
const log = createLogger({ LOG_LEVEL: 'silent', LOG_FORMAT: 'json' }, { write: () => undefined });

afterEach(() => { vi.useRealTimers(); });

describe('the standby relay\'s check', () => {
  it('has no timer while no match has a relay, one while one has, none once the relay is gone or closed', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'Date'] });
    let runs = true;
    const relay = new StandbyRelay({
      config, log, store: new MemoryStandbyStore(), control: new MemoryControlBus(), runsHere: () => runs,
      apply: () => true, primaryLastAt: () => 0,
    });
    expect(vi.getTimerCount()).toBe(0);
    await relay.watch('WAKE01', Date.now() + 60_000);
    await relay.watch('WAKE02', Date.now() + 60_000);
    expect(vi.getTimerCount()).toBe(1); // one check for every relay
    expect(relay.view('WAKE01')).not.toBeNull();
    // Another node runs both now: the next check drops their relays, the one after stops the timer.
    runs = false;
    vi.advanceTimersByTime(100);
    expect(relay.view('WAKE01')).toBeNull();
    vi.advanceTimersByTime(100);
    expect(vi.getTimerCount()).toBe(0);
    // A standby's first copy makes a relay again, and the check with it.
    runs = true;
    expect(relay.receive('WAKE03', 'standby', JSON.stringify({ type: 'roster', data: {}, groupCode: 'WAKE03' }), Date.now())).toBe(true);
    expect(vi.getTimerCount()).toBe(1);
    relay.close();
    expect(vi.getTimerCount()).toBe(0);
    // Closed: a late payload makes no timer.
    relay.receive('WAKE04', 'standby', JSON.stringify({ type: 'roster', data: {}, groupCode: 'WAKE04' }), Date.now());
    expect(vi.getTimerCount()).toBe(0);
  });
});
