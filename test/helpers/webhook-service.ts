// A test file's service with one webhook endpoint, 'rx', on a receiver started with it
// (./webhook-receiver.ts), both closed after the file's tests with every client the helpers opened:
// the set-up the event tests share.
import { afterAll } from 'vitest';
import { closeAll } from './clients.js';
import { startTestService, type TestService } from './service.js';
import { startReceiver, type WebhookReceiver } from './webhook-receiver.js';

/** A webhook endpoint's secret in the service's format: `whsec_` and the base64 of `seed` (24 bytes or more). */
export const webhookSecret = (seed: string): string => `whsec_${Buffer.from(seed).toString('base64')}`;

export interface ServiceWithReceiver { svc: TestService; rx: WebhookReceiver }

/**
 * Registers the file's clean-up and returns its start: a receiver, then the service with `env` and
 * WEBHOOKS the one endpoint `{ id: 'rx', url, secret, ...endpoint }`.
 */
export function serviceWithReceiver(secret: string, endpoint: Record<string, unknown> = {}): (env: Record<string, string>) => Promise<ServiceWithReceiver> {
  let svc: TestService | undefined;
  let rx: WebhookReceiver | undefined;
  afterAll(async () => {
    closeAll();
    await svc?.close();
    await rx?.close();
  });
  return async (env) => {
    rx = await startReceiver();
    svc = await startTestService({ ...env, WEBHOOKS: JSON.stringify([{ id: 'rx', url: rx.url, secret, ...endpoint }]) });
    return { svc, rx };
  };
}
