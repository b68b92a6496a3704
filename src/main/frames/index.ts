// @generated-face frames
export { type Frame, type FrameBus, type FrameText, type FrameTextSource } from './frame-bus.js';
