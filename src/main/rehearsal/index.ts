// The rehearsals' door (README, "Rehearsals"): a recording played into a group code, across nodes;
// routes and panel.
export { REHEARSAL_PANEL_HTML } from './panel.js';
export { Rehearsals } from './rehearsals.js';
export { RehearsalControl } from './remote.js';
export { registerRehearsals, type RehearsalRouteDeps } from './rest.js';
