// The previews and team info door: their ports and routes.
export { type PreviewStore } from './preview-store.js';
export { registerTeamInfo } from './rest-team-info.js';
export { registerPreviews } from './rest.js';
export { type TeamInfoStore } from './team-info-store.js';
