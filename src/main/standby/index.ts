// The standby observer's door (docs/reliability.md, "A standby observer"): the parts the composition
// root assembles, the StandbyStore port, and its routes.
export { type StandbyAdmission } from './admission.js';
export { registerStandbyMetrics } from './metrics.js';
export { type FailoverCause, type StandbyRelay } from './relay.js';
export { registerStandby, type StandbyRouteDeps } from './rest.js';
export { type StandbyStore } from './standby-store.js';
export { createStandby } from './standby.js';
