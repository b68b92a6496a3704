// @generated-face sessions
export { generateSecret, keyIdOf, secretDigest, secretMatches, withoutCamSecret } from './credentials.js';
export { seatOf, type NewSession, type Role, type Seat, type SessionRecord, type SessionStore, type TakenOver } from './session-store.js';
