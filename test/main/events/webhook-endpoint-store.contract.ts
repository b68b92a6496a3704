// The WebhookEndpointStore contract (src/main/events/webhook-endpoint-store.ts): every adapter must pass it.
import { describe, expect, it } from 'vitest';
import { closedAfterEach } from '../ports/opened-stores.js';
import type { KeptEndpoint, WebhookEndpointStore } from '../../../src/main/events/webhook-endpoint-store.js';

export interface WebhookEndpointStoreHarness {
  make(): WebhookEndpointStore | Promise<WebhookEndpointStore>;
  /** A second store over the same data (another node, or the process after a restart). */
  reopen(first: WebhookEndpointStore): WebhookEndpointStore | Promise<WebhookEndpointStore>;
}

export const endpointOf = (id: string, extra: Partial<KeptEndpoint> = {}): KeptEndpoint => ({
  id, url: `http://127.0.0.1:9/${id}`, secret: `whsec_${Buffer.from(`secret-of-${id}-padded-to-24-bytes`).toString('base64')}`,
  events: ['kill', 'round_ended'], organizations: [], groupCodes: [], batch: false, createdAt: 1_700_000_000_000, ...extra,
});

const byId = (list: KeptEndpoint[]) => [...list].sort((a, b) => a.id.localeCompare(b.id));

export function describeWebhookEndpointStoreContract(name: string, harness: WebhookEndpointStoreHarness): void {
  describe(`WebhookEndpointStore contract: ${name}`, () => {
    const track = closedAfterEach<WebhookEndpointStore>();
    const make = async () => track(await harness.make());

    it('add keeps an endpoint whole (its secret too), all reads them back, remove takes one', async () => {
      const store = await make();
      expect(await store.all()).toEqual([]);
      expect(await store.add(endpointOf('a'), 10)).toEqual({ ok: true });
      expect(await store.add(endpointOf('b', { batch: true, organizations: ['org-1'], groupCodes: ['K7QX2M', 'ABC123'], events: [] }), 10)).toEqual({ ok: true });
      expect(byId(await store.all())).toEqual([endpointOf('a'), endpointOf('b', { batch: true, organizations: ['org-1'], groupCodes: ['K7QX2M', 'ABC123'], events: [] })]);
      expect(await store.remove('a')).toBe(true);
      expect(await store.remove('a')).toBe(false);
      expect(await store.all()).toEqual([endpointOf('b', { batch: true, organizations: ['org-1'], groupCodes: ['K7QX2M', 'ABC123'], events: [] })]);
    });

    it('refuses an id kept already and a new one past the bound, writing nothing', async () => {
      const store = await make();
      expect(await store.add(endpointOf('x'), 2)).toEqual({ ok: true });
      expect(await store.add(endpointOf('x', { url: 'http://127.0.0.1:9/other' }), 2)).toEqual({ ok: false, reason: 'exists' });
      expect(await store.add(endpointOf('y'), 2)).toEqual({ ok: true });
      expect(await store.add(endpointOf('z'), 2)).toEqual({ ok: false, reason: 'full' });
      expect(byId(await store.all())).toEqual([endpointOf('x'), endpointOf('y')]);
    });

    it('moves its revision with every write, and another store over the same data reads what was written', async () => {
      const store = await make();
      const r0 = await store.revision();
      await store.add(endpointOf('r'), 10);
      const r1 = await store.revision();
      expect(r1).not.toBe(r0);
      await store.add(endpointOf('r'), 10); // refused: no write
      expect(await store.revision()).toBe(r1);
      const other = track(await harness.reopen(store));
      expect(await other.all()).toEqual([endpointOf('r')]);
      const before = await other.revision();
      expect(await other.remove('r')).toBe(true);
      expect(await other.revision()).not.toBe(before);
      expect(await other.all()).toEqual([]);
    });
  });
}
