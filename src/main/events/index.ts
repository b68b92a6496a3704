// @generated-face events
export { openEventOutput, type EventOutput } from './event-output.js';
export { WEBHOOKS_PANEL_HTML } from './panel.js';
export { registerEventsAdmin } from './rest-admin.js';
export { registerEvents } from './rest.js';
