// The ports every node of a cluster shares, as the composition root (service.ts) builds them: memory
// adapters in one process (STATE_DIR's for snapshots, sessions and standbys), Redis's with REDIS_URL
// (redis-ports.ts).
import type { ControlBus } from './control/index.js';
import type { FixtureStore } from './schedule/index.js';
import type { FrameBus } from './frames/index.js';
import type { MatchDirectory, SnapshotStore } from './matches/index.js';
import type { OutputDelayStore } from './output-delay/index.js';
import type { PreviewStore, TeamInfoStore } from './previews/index.js';
import type { SessionStore } from './sessions/index.js';
import type { StandbyStore } from './standby/index.js';

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
