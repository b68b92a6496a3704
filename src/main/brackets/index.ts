// The brackets' door (docs/brackets.md): the concern the composition root opens over its store and
// platform adapters, its admin routes and its dashboard panel.
export { type BracketStore } from './bracket-store.js';
export { Brackets, type BracketsDeps } from './brackets.js';
export { BRACKETS_PANEL_HTML } from './panel.js';
export { type BracketPlatform } from './platform.js';
export { registerBrackets, type BracketRouteContext } from './rest.js';
