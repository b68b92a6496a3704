// The schedule's door (docs/fixtures.md): the series keeper, the FixtureStore port, routes and panel,
// and what another room that makes fixtures needs (brackets/: a bracket's matches become fixtures).
export { type Fixture, type FixtureStore, type FixtureTeam } from './fixture-store.js';
export { type FixtureKeeper, type ScheduledFeed } from './keeper.js';
export { FIXTURES_MAX_STORED } from './limits.js';
export { openSchedule } from './open.js';
export { FIXTURES_PANEL_HTML } from './panel.js';
export { buildFixtures, UploadError } from './parse.js';
export { registerFixtures, type FixtureRouteDeps } from './rest.js';
export { decided, status, wins } from './series.js';
