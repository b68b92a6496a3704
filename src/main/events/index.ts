// The match events' door (docs/events.md): the event output the composition root assembles, and
// what the REST listener and the dashboard read of it.
export { openEventOutput, type EventOutput } from './event-output.js';
export { WEBHOOKS_PANEL_HTML } from './panel.js';
export { registerEventsAdmin } from './rest-admin.js';
export { registerEvents } from './rest.js';
export { JournalFiles } from './journal-files.js';
export { registerEventsRead } from './rest-read.js';
