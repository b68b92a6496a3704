// The frames concern's door: the FrameBus port (each match's frames from its owner to the listeners).
export { type Frame, type FrameBus, type FrameText, type FrameTextSource } from './frame-bus.js';
