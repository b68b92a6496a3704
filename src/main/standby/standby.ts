// The standby observer's parts, assembled for the composition root (service.ts): the store of
// each match's standby (a port: memory, STATE_DIR or Redis, built and closed with the others), the
// owner's relay (relay.ts) and who may log on as a standby (admission.ts).
import type { Config } from '../base/config.js';
import type { EventBus, MainEvents } from '../base/events.js';
import type { Logger } from '../base/log.js';
import type { ControlBus } from '../control/index.js';
import type { LocalRoutes, MatchDirectory, MatchInputs, ObserverClock } from '../matches/index.js';
import type { StandbyStore } from './standby-store.js';
import { StandbyAdmission } from './admission.js';
import { StandbyRelay } from './relay.js';

export interface Standby {
  store: StandbyStore;
  relay: StandbyRelay;
  admission: StandbyAdmission;
  close(): void;
}

export function createStandby(deps: { config: Config; log: Logger; store: StandbyStore; directory: MatchDirectory; control: ControlBus; inputs: MatchInputs; routes: LocalRoutes; events: EventBus<MainEvents>; clock: ObserverClock }): Standby {
  const { config, log, store, directory, control, inputs, routes, events, clock } = deps;
  const relay = new StandbyRelay({
    config, log, store, control, runsHere: (code) => routes.get(code) !== undefined, apply: (groupCode, raw, now, via) => inputs.obs(groupCode, raw, now, via),
    primaryLastAt: (code) => clock.last(code),
    failedOver: (groupCode, { cause, from, to, at }) => events.emit('observerFailover', { groupCode, cause, from, to, at }),
  });
  const admission = new StandbyAdmission({ config, log, store, directory, relay });
  return { store, relay, admission, close: () => relay.close() };
}
