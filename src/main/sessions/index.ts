// The sessions concern's door: what a logon is checked against (credentials) and the SessionStore port.
export { generateSecret, keyIdOf, secretDigest, secretMatches, withoutCamSecret } from './credentials.js';
export { seatOf, type NewSession, type Role, type Seat, type SessionRecord, type SessionStore, type TakenOver } from './session-store.js';
