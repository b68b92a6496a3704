// The backend concern's door (docs/architecture.md, "Where things live"): outbound calls to the
// backend (the outbound client, the key chain and KEYS_FILE, OAuth, the store) and their routes.
export { createOutbound, pathSegment, type JsonResponse, type Outbound, type OutboundReport } from './http.js';
export { createKeyValidator, type KeyValidator } from './key-validation.js';
export { KeysFile } from './keys-file.js';
export { registerOAuth } from './rest-oauth.js';
export { registerOrg } from './rest-org.js';
export { registerSupport } from './rest-support.js';
export { createSupportPackages, type SupportPackages } from './store.js';
