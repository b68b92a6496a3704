// @generated-face rehearsal
export { REHEARSAL_PANEL_HTML } from './panel.js';
export { Rehearsals } from './rehearsals.js';
export { RehearsalControl } from './remote.js';
export { registerRehearsals, type RehearsalRouteDeps } from './rest.js';
