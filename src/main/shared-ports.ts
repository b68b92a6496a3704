// The ports every node of a cluster shares, as the composition root (service.ts) builds them: memory
// adapters in one process (STATE_DIR's for snapshots, sessions and standbys), Redis's with REDIS_URL
// (redis-ports.ts).
import type { ControlBus } from './control/control-bus.js';
import type { FixtureStore } from './schedule/fixture-store.js';
import type { FrameBus } from './frames/frame-bus.js';
import type { MatchDirectory } from './matches/match-directory.js';
import type { OutputDelayStore } from './output-delay/output-delay-store.js';
import type { PreviewStore } from './previews/preview-store.js';
import type { SessionStore } from './sessions/session-store.js';
import type { SnapshotStore } from './matches/snapshot-store.js';
import type { StandbyStore } from './standby/standby-store.js';
import type { TeamInfoStore } from './previews/team-info-store.js';

/** The shared ports, one adapter each. */
export interface SharedPorts {
  previews: PreviewStore;
  teamInfo: TeamInfoStore;
  sessions: SessionStore;
  directory: MatchDirectory;
  snapshots: SnapshotStore;
  frames: FrameBus;
  control: ControlBus;
  standby: StandbyStore;
  fixtures: FixtureStore;
  outputDelays: OutputDelayStore;
}
