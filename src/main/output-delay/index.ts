// @generated-face output-delay
export { type OutputDelayStore } from './output-delay-store.js';
export { OutputDelays } from './output-delays.js';
export { DELAY_PANEL_HTML } from './panel.js';
export { registerDelays } from './rest.js';
