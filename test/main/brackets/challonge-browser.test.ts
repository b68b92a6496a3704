// The dashboard's "Brackets" panel linking a Challonge tournament, in headless chromium (Debian's
// /usr/bin/chromium through playwright-core, as the other dashboard tests): the operator picks
// Challonge (the best-of choice appears: Challonge has none), types the tournament's URL and key,
// best of 5, reports held for confirmation; the open match appears with its group code and station,
// its fixture a best of 5; a map's result (added as an operator adds one) is held, nothing reaches
// the stand-in until Confirm is clicked, then `match[scores_csv]` goes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { chromiumOrWarn, openBrowser, type Browser } from '../../helpers/browser.js';
import { closeAll } from '../../helpers/clients.js';
import { fixture } from '../../helpers/fixtures.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { autumnCup, ChallongeStandin, CH } from '../../helpers/challonge.js';
import { linkedSet } from '../../helpers/brackets.js';

interface PageElement { textContent: string | null; dataset: Record<string, string | undefined> }
declare const document: { querySelectorAll(selector: string): ArrayLike<PageElement> };

const HAVE_CHROMIUM = chromiumOrWarn('challonge browser test');
const TOKEN = 'challonge-browser-token-4a2d19';
const AUTH_KEY = 'CHALLONGE-BROWSER-KEY';
const CH_KEY = 'chBr0ws3rK3y0123456789abcdef0123456789ab';
const URL = 'https://autumncup.challonge.com/vlr_main';

describe.skipIf(!HAVE_CHROMIUM && !process.env.CI)('the dashboard\'s Brackets panel in headless chromium: a Challonge tournament', () => {
  let ch: ChallongeStandin;
  let svc: TestService;
  let browser: Browser | undefined;
  let page: Page;
  let code = '';

  beforeAll(async () => {
    ch = await ChallongeStandin.start([CH_KEY]);
    ch.tournaments.push(autumnCup());
    svc = await startTestService({ ADMIN_TOKEN: `ops:${TOKEN}`, AUTH_KEY, CHALLONGE_API_URL: ch.url, BRACKETS_POLL_MS: '1000', BRACKETS_RETRY_MS: '200', BRACKETS_RETRY_MAX_MS: '1000' });
    browser = await openBrowser({ viewport: { width: 1440, height: 1600 }, credentials: { username: 'ops', password: TOKEN } });
    page = browser.page;
    expect((await page.goto(`${svc.rest}/dashboard`))?.status()).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    closeAll();
    await svc?.close();
    await ch?.close();
  });

  const rows = () => page.evaluate(() => Array.from(document.querySelectorAll('#bk-set-rows tr')).map((tr) => `${tr.dataset.code}:${tr.dataset.report}`));
  const updates = () => ch.updates.filter((u) => u.matchId === CH.ubf);

  it('links the tournament from the panel (Challonge, best of 5, held); its open match appears with its group code and station', async () => {
    expect(await page.isVisible('#bk-bo')).toBe(false);
    await page.selectOption('#bk-platform', 'challonge');
    expect(await page.isVisible('#bk-bo')).toBe(true);
    expect(await page.textContent('#bk-url-label')).toBe('Challonge tournament');
    await page.fill('#admin-token', TOKEN);
    await page.fill('#bk-url', URL);
    await page.fill('#bk-token', CH_KEY);
    await page.selectOption('#bk-bo', '5');
    await page.selectOption('#bk-mode', 'confirm');
    await page.click('#bk-link');
    await expect.poll(() => page.textContent('#bk-msg')).toBe(`Linked: ${URL}`);
    expect(await page.inputValue('#bk-token')).toBe('');
    await expect.poll(rows, { timeout: 10_000 }).toHaveLength(1);
    code = (await linkedSet(svc.rest, TOKEN, CH.ubf))!.groupCode;
    expect(await rows()).toEqual([`${code}:none`]);
    const row = `#bk-set-rows tr[data-code="${code}"]`;
    expect(await page.textContent(`${row} td:nth-child(2)`)).toBe('– / Station 3');
    expect(await page.textContent(`${row} td:nth-child(4)`)).toBe(`${CH.wolves.name} vs ${CH.owls.display_name}`);
    await expect.poll(() => page.textContent('#bk-link-rows tr td:nth-child(1)'), { timeout: 5_000 }).toBe('Autumn Cup 2026 – VALORANT (challonge)');
    expect(((await fixture(svc.rest, TOKEN, code)) as unknown as { bestOf: number }).bestOf).toBe(5);
  }, 30_000);

  it('holds a map\'s report until Confirm is clicked, then sends its scores_csv', async () => {
    const row = `#bk-set-rows tr[data-code="${code}"]`;
    const added = await fetch(`${svc.rest}/admin/fixtures/${code}/results/1`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: '{"scores":[13,9]}' });
    expect(added.status).toBe(200);
    await expect.poll(rows, { timeout: 10_000 }).toEqual([`${code}:held`]);
    expect(await page.textContent(`${row} td.bk-report`)).toContain('held: 13–9');
    expect(updates()).toEqual([]);
    await page.click(`${row} button.confirm`);
    await expect.poll(() => updates().length, { timeout: 10_000 }).toBe(1);
    expect(updates()[0].form).toEqual({ 'match[scores_csv]': '13-9', api_key: '(key)' });
    await expect.poll(rows, { timeout: 10_000 }).toEqual([`${code}:sent`]);
    expect(ch.invalid()).toEqual([]);
  }, 30_000);
});
