// The schedule's door (docs/fixtures.md): the series keeper, the FixtureStore port, routes and panel.
export { type FixtureStore } from './fixture-store.js';
export { type FixtureKeeper, type ScheduledFeed } from './keeper.js';
export { openSchedule } from './open.js';
export { FIXTURES_PANEL_HTML } from './panel.js';
export { registerFixtures, type FixtureRouteDeps } from './rest.js';
