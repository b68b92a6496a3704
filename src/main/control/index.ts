// The control concern's door: the ControlBus port (force-end, removal, rotation, rehearsal
// requests, observer swap), whose adapters only the composition root builds.
export { type ControlBus, type ControlMessage, type RehearsalAction } from './control-bus.js';
