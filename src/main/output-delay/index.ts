// The output delay's door (README, "Output delay"): each process's view of the per-match delay,
// its store's port, routes and panel.
export { type OutputDelayStore } from './output-delay-store.js';
export { OutputDelays } from './output-delays.js';
export { DELAY_PANEL_HTML } from './panel.js';
export { registerDelays } from './rest.js';
