// @generated-face control
export { type ControlBus, type ControlMessage, type RehearsalAction } from './control-bus.js';
