// Every port's contract (test/main/<concern>/<port>.contract.ts) against its memory adapter, the embedded default. A later
// adapter (Redis) runs the same suites with its own harness.
import { MemoryControlBus } from '../../../src/main/control/adapters/memory/control-bus.js';
import { MemoryFrameBus } from '../../../src/main/frames/adapters/memory/frame-bus.js';
import { MemoryMatchDirectory } from '../../../src/main/matches/adapters/memory/match-directory.js';
import { MemoryPreviewStore } from '../../../src/main/previews/adapters/memory/preview-store.js';
import { MemorySessionStore } from '../../../src/main/sessions/adapters/memory/session-store.js';
import { MemorySnapshotStore } from '../../../src/main/matches/adapters/memory/snapshot-store.js';
import { MemoryStandbyStore } from '../../../src/main/standby/adapters/memory/standby-store.js';
import { MemoryTeamInfoStore } from '../../../src/main/previews/adapters/memory/team-info-store.js';
import { describeControlBusContract } from '../control/control-bus.contract.js';
import { describeFrameBusContract } from '../frames/frame-bus.contract.js';
import { describeMatchDirectoryContract } from '../matches/match-directory.contract.js';
import { describePreviewStoreContract } from '../previews/preview-store.contract.js';
import { describeSessionStoreContract } from '../sessions/session-store.contract.js';
import { describeSnapshotStoreContract } from '../matches/snapshot-store.contract.js';
import { describeStandbyStoreContract } from '../standby/standby-store.contract.js';
import { describeTeamInfoStoreContract } from '../previews/team-info-store.contract.js';

/** A clock the memory stores read (their `now` option); `advance` moves it. */
function fakeClock() {
  let t = 1_000_000;
  return { now: () => t, advance: async (ms: number) => { t += ms; } };
}

const previewClock = fakeClock();
describePreviewStoreContract('memory', {
  make: (bounds) => new MemoryPreviewStore({ ...bounds, now: previewClock.now }),
  advance: previewClock.advance,
});

const teamClock = fakeClock();
describeTeamInfoStoreContract('memory', {
  // A long cleanup interval: expiry must hold on read and in size() without the sweep timer.
  make: (ttlMs) => new MemoryTeamInfoStore({ ttlMs, cleanupMs: 3_600_000, now: teamClock.now }),
  advance: teamClock.advance,
});

describeSessionStoreContract('memory', { make: (windowMs) => new MemorySessionStore(windowMs) });
describeMatchDirectoryContract('memory', { make: () => new MemoryMatchDirectory(), settle: async () => undefined });
describeSnapshotStoreContract('memory', { make: () => new MemorySnapshotStore() });
describeStandbyStoreContract('memory', { make: () => new MemoryStandbyStore() });
describeFrameBusContract('memory', { make: () => new MemoryFrameBus(), settle: async () => undefined });
describeControlBusContract('memory', { make: () => new MemoryControlBus(), settle: async () => undefined });
