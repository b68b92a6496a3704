// The client address written to logs. Behind a reverse proxy the TCP peer is the proxy; with
// TRUST_PROXY=true the address the proxy forwarded is logged instead: the last X-Forwarded-For hop
// (the one the proxy itself appended, e.g. nginx's $proxy_add_x_forwarded_for), else X-Real-IP.
// For logs only: never an access decision, since a client can send these headers itself.
import { MAX_LOGGED_ADDRESS_LENGTH as MAX_LENGTH } from './limits.js';

export function clientAddress(trustProxy: boolean, peer: string | undefined, forwardedFor?: string | string[], realIp?: string | string[]): string {
  const peerText = peer ?? '';
  if (!trustProxy) return peerText;
  const xff = Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor ?? '';
  const hops = xff.split(',').map((h) => h.trim()).filter(Boolean);
  const forwarded = hops.length > 0 ? hops[hops.length - 1] : (Array.isArray(realIp) ? realIp[0] : realIp)?.trim() ?? '';
  // Only something address-like reaches the log (header values are client-controlled text).
  if (forwarded && forwarded.length <= MAX_LENGTH && /^[0-9A-Za-z.:[\]%_-]+$/.test(forwarded)) return forwarded;
  return peerText;
}
