// The Standard Webhooks signature (docs/events.md, "Signing"): `v1,<base64 HMAC-SHA256 of
// "<webhook-id>.<webhook-timestamp>.<body>">` with the secret's base64 part as the key. Made with
// node:crypto instead of the `standardwebhooks` package's sign(): the package computes the HMAC in
// JavaScript (fast-sha256) and re-encodes the whole body with a TextEncoder on every call, which the
// profile of bench:events showed among the delivery's costs (docs/benchmarks.md, "Match events");
// node:crypto hashes natively from the string. The same bytes: test/main/events/webhooks.test.ts
// verifies every delivery with the package's verify().
import { createHmac } from 'node:crypto';

export type Signer = (id: string, timestampSeconds: number, body: string) => string;

/** A signer for one endpoint's secret (`whsec_` + base64). */
export function webhookSigner(secret: string): Signer {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
  return (id, timestampSeconds, body) => `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.`).update(body).digest('base64')}`;
}
