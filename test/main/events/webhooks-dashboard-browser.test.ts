// The dashboard's Webhooks panel in headless Chromium (Debian's /usr/bin/chromium through
// playwright-core): an endpoint that refuses every connection, WEBHOOK_RETRY_FOR_MS at its minimum
// (1 s), a match that produces events: the page lists the endpoint with its counts and shows the
// dead letters (event id, type, group code, last error) without a reload. Skipped with a message
// only when chromium is missing (.ci/run installs it).
import { afterAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { chromiumOrWarn, openBrowser, type Browser } from '../../helpers/browser.js';
import { closeAll } from '../../helpers/clients.js';
import { recordedMatch, replayObserver, sendRecords } from '../../helpers/recorded.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { refusedUrl } from '../../helpers/backends.js';

interface PageElement { textContent: string | null; hidden: boolean }
declare const document: { querySelectorAll(selector: string): ArrayLike<PageElement>; getElementById(id: string): PageElement | null };

const HAVE_CHROMIUM = chromiumOrWarn('webhooks dashboard browser test');
const replay = recordedMatch();
const TOKEN = 'webhooks-dashboard-token-51a9';
const KEY = 'webhooks-dashboard-key';
const SECRET = `whsec_${Buffer.from('dash-test-secret-of-24-bytes!!').toString('base64')}`;

describe.skipIf(!HAVE_CHROMIUM)('webhooks panel in headless chromium', () => {
  let svc: TestService | undefined;
  let browser: Browser | undefined;
  afterAll(async () => {
    await browser?.close();
    closeAll();
    await svc?.close();
  });

  it('shows a dead endpoint\'s dead letters', async () => {
    const dead = await refusedUrl();
    svc = await startTestService({
      AUTH_KEY: KEY, ADMIN_TOKEN: `ops:${TOKEN}`, WEBHOOK_RETRY_FOR_MS: '1000',
      WEBHOOKS: JSON.stringify([{ id: 'dead-end', url: `${dead}/hook`, secret: SECRET }]),
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
    const api = await (await svc.admin.request('GET', '/admin/webhooks')).json() as { deadLetters: { eventId: string; lastError: string }[] };
    expect(api.deadLetters.length).toBeGreaterThan(0);
    expect(JSON.stringify(api)).not.toContain(SECRET);
    expect((await page.content())).not.toContain(SECRET);
    socket.close();
  }, 90_000);
});
