// The dashboard's "Output delay" panel in headless Chromium (Debian's /usr/bin/chromium through
// playwright-core, as the other dashboard tests): the operator types the admin token, sets a code's
// delay with the form (the admin API then has it, and the list shows it), is told why 601 s is
// refused, and removes the delay with the row's button. Skipped with a message only when chromium is
// missing (.ci/run installs it).
import { afterAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { chromiumOrWarn, openBrowser, type Browser } from '../../helpers/browser.js';
import { closeAll } from '../../helpers/clients.js';
import { startTestService, type TestService } from '../../helpers/service.js';

interface PageElement { textContent: string | null; className: string }
declare const document: { querySelectorAll(selector: string): ArrayLike<PageElement>; getElementById(id: string): PageElement | null };

const HAVE_CHROMIUM = chromiumOrWarn('output delay browser test');
const TOKEN = 'delay-dashboard-token-7c21';

describe.skipIf(!HAVE_CHROMIUM && !process.env.CI)('the dashboard\'s Output delay panel in headless chromium', () => {
  let svc: TestService | undefined;
  let browser: Browser | undefined;
  afterAll(async () => {
    await browser?.close();
    closeAll();
    await svc?.close();
  });

  it('sets, refuses out of bounds, lists and removes a match\'s delay', async () => {
    svc = await startTestService({ ADMIN_TOKEN: `ops:${TOKEN}` });
    browser = await openBrowser({ viewport: { width: 1440, height: 1400 }, credentials: { username: 'ops', password: TOKEN } });
    const page: Page = browser.page;
    expect((await page.goto(`${svc.rest}/dashboard`))?.status()).toBe(200);
    const api = async (code: string) => ((await (await svc!.admin.request('GET', `/admin/matches/${code}/delay`)).json()) as { seconds: number }).seconds;
    const rows = () => page.evaluate(() => Array.from(document.querySelectorAll('#od-rows tr')).map((r) => r.textContent ?? ''));
    const message = () => page.evaluate(() => ({ text: document.getElementById('od-msg')?.textContent ?? '', cls: document.getElementById('od-msg')?.className ?? '' }));

    // Without the token the panel says what is missing, and nothing is set.
    await page.fill('#od-code', 'DASHD1');
    await page.fill('#od-seconds', '45');
    await page.click('#od-set');
    await expect.poll(message).toEqual({ text: expect.stringContaining('admin token'), cls: 'bad' });
    expect(await api('DASHD1')).toBe(0);

    await page.fill('#admin-token', TOKEN);
    await page.click('#od-set');
    await expect.poll(message, { timeout: 10_000 }).toEqual({ text: 'DASHD1: delayed by 45 s', cls: 'good' });
    expect(await api('DASHD1')).toBe(45);
    await expect.poll(rows, { timeout: 10_000 }).toEqual([expect.stringContaining('DASHD1')]);
    expect((await rows())[0]).toContain('45 s');

    // Out of bounds: the route's reason on the page, and the setting unchanged. (The field's max
    // would stop a real submit; the form is sent past it here to show the server's answer.)
    await page.fill('#od-seconds', '601');
    await page.evaluate(() => (document.getElementById('od-form') as unknown as { noValidate: boolean }).noValidate = true);
    await page.click('#od-set');
    await expect.poll(message, { timeout: 10_000 }).toEqual({ text: expect.stringContaining('a whole number from 0 (off) to 600'), cls: 'bad' });
    expect(await api('DASHD1')).toBe(45);

    await page.click('#od-rows tr[data-code="DASHD1"] button:has-text("Remove delay")');
    await expect.poll(message, { timeout: 10_000 }).toEqual({ text: 'DASHD1: no delay', cls: 'good' });
    expect(await api('DASHD1')).toBe(0);
    await expect.poll(rows, { timeout: 10_000 }).toEqual([]);
  }, 60_000);
});
