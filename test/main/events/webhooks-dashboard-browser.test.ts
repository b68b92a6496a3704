// The dashboard's Webhooks panel in headless Chromium (Debian's /usr/bin/chromium through
// playwright-core): an endpoint that refuses every connection, WEBHOOK_RETRY_FOR_MS at its minimum
// (1 s), a match that produces events: the page lists the endpoint with its counts and shows the
// dead letters (event id, type, group code, last error) without a reload. Then a receiver that
// answers 500 until its dead letters are there, and 204 after: the dead letter's "Redeliver" button
// (with the admin token typed into the toolbar; without it the panel says so) sends the event again,
// signed, and the dead letter leaves the list. Skipped with a message only when chromium is missing
// outside CI (.ci/run installs it; under CI=true a missing chromium fails).
import { afterAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { chromiumOrWarn, openBrowser, type Browser } from '../../helpers/browser.js';
import { closeAll } from '../../helpers/clients.js';
import { recordedMatch, replayObserver, sendRecords } from '../../helpers/recorded.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { refusedUrl } from '../../helpers/backends.js';
import { Webhook } from 'standardwebhooks';
import { startReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';

interface PageElement { textContent: string | null; hidden: boolean; className: string }
declare const document: { querySelectorAll(selector: string): ArrayLike<PageElement>; getElementById(id: string): PageElement | null };

const HAVE_CHROMIUM = chromiumOrWarn('webhooks dashboard browser test');
const replay = recordedMatch();
const TOKEN = 'webhooks-dashboard-token-51a9';
const KEY = 'webhooks-dashboard-key';
const SECRET = `whsec_${Buffer.from('dash-test-secret-of-24-bytes!!').toString('base64')}`;

describe.skipIf(!HAVE_CHROMIUM && !process.env.CI)('webhooks panel in headless chromium', () => {
  let svc: TestService | undefined;
  let browser: Browser | undefined;
  let receiver: WebhookReceiver | undefined;
  afterAll(async () => {
    await browser?.close();
    closeAll();
    await svc?.close();
    await receiver?.close();
  });

  it('shows a dead endpoint\'s dead letters', async () => {
    const dead = await refusedUrl();
    svc = await startTestService({
      AUTH_KEY: KEY, ADMIN_TOKEN: `ops:${TOKEN}`, WEBHOOK_RETRY_FOR_MS: '1000',
      WEBHOOKS: JSON.stringify([{ id: 'dead-end', url: `${dead}/hook`, secret: SECRET, groupCodes: ['DEADWH', 'OTHER1'] }]),
    });
    browser = await openBrowser({ viewport: { width: 1440, height: 900 }, credentials: { username: 'ops', password: TOKEN } });
    const page: Page = browser.page;
    expect((await page.goto(`${svc.rest}/dashboard`))?.status()).toBe(200);
    const cells = (id: string) => page.evaluate((i) => Array.from(document.querySelectorAll(`#${i} tr`)).map((r) => r.textContent ?? ''), id);
    await expect.poll(() => cells('wh-rows'), { timeout: 15_000 }).toEqual([expect.stringContaining('dead-end')]);
    expect(await page.evaluate(() => document.getElementById('wh-none')?.hidden)).toBe(false);

    const { socket, ack } = await replayObserver(svc.ingest, replay, { key: KEY, groupCode: 'DEADWH' });
    expect(ack.value).toBe(true);
    await sendRecords(socket, replay, { pace: 'instant', groupCode: 'DEADWH', to: 20 });
    // match_created is given up after 1 s of refused connections, and the page shows it.
    await expect.poll(async () => (await cells('wh-dead')).some((t) => t.includes('DEADWH') && t.includes('match_created') && t.includes('dead-end')), { timeout: 30_000, interval: 250 }).toBe(true);
    expect(await page.evaluate(() => document.getElementById('wh-none')?.hidden)).toBe(true);
    const endpointRow = (await cells('wh-rows'))[0];
    expect(endpointRow).toContain(`${dead}/hook`);
    expect(endpointRow).toContain('DEADWH, OTHER1'); // its group-code filter
    const api = await (await svc.admin.request('GET', '/admin/webhooks')).json() as { deadLetters: { eventId: string; lastError: string }[] };
    expect(api.deadLetters.length).toBeGreaterThan(0);
    expect(JSON.stringify(api)).not.toContain(SECRET);
    expect((await page.content())).not.toContain(SECRET);
    socket.close();
    await browser.close();
    browser = undefined;
    await svc.close();
    svc = undefined;
  }, 90_000);

  it('redelivers a dead letter with its Redeliver button', async () => {
    let failing = true;
    receiver = await startReceiver(() => (failing ? 500 : 204));
    svc = await startTestService({
      AUTH_KEY: KEY, ADMIN_TOKEN: `ops:${TOKEN}`, WEBHOOK_RETRY_FOR_MS: '1000',
      WEBHOOKS: JSON.stringify([{ id: 'flaky', url: `${receiver.url}/hook`, secret: SECRET }]),
    });
    browser = await openBrowser({ viewport: { width: 1440, height: 900 }, credentials: { username: 'ops', password: TOKEN } });
    const page: Page = browser.page;
    expect((await page.goto(`${svc.rest}/dashboard`))?.status()).toBe(200);
    const { socket, ack } = await replayObserver(svc.ingest, replay, { key: KEY, groupCode: 'REDELV' });
    expect(ack.value).toBe(true);
    await sendRecords(socket, replay, { pace: 'instant', groupCode: 'REDELV', to: 20 });
    const created = '#wh-dead tr:has-text("match_created")';
    await page.waitForSelector(created, { timeout: 30_000 });
    failing = false;
    const message = () => page.evaluate(() => ({ text: document.getElementById('wh-msg')?.textContent ?? '', cls: document.getElementById('wh-msg')?.className ?? '' }));

    // Without the token: the panel says what is missing, nothing is sent.
    const before = receiver.deliveries.length;
    await page.click(`${created} button:has-text("Redeliver")`);
    await expect.poll(message).toEqual({ text: expect.stringContaining('admin token'), cls: 'bad' });

    await page.fill('#admin-token', TOKEN);
    await page.click(`${created} button:has-text("Redeliver")`);
    await expect.poll(message, { timeout: 15_000 }).toEqual({ text: expect.stringContaining('redelivered to flaky'), cls: 'good' });
    const sent = receiver.deliveries.slice(before).find((d) => JSON.parse(d.body).type === 'match_created')!;
    expect(sent).toBeDefined();
    expect((new Webhook(SECRET).verify(sent.body, { 'webhook-id': sent.id, 'webhook-timestamp': sent.timestamp, 'webhook-signature': sent.signature }) as { groupCode: string }).groupCode).toBe('REDELV');
    // The dead letter leaves the list (the page's and the API's).
    await expect.poll(async () => page.locator(created).count(), { timeout: 15_000 }).toBe(0);
    const api = await (await svc.admin.request('GET', '/admin/webhooks')).json() as { deadLetters: { type: string }[] };
    expect(api.deadLetters.some((d) => d.type === 'match_created')).toBe(false);
    socket.close();
  }, 90_000);
});
