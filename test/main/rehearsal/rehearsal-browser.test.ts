// The dashboard's "Rehearse" panel driven in headless chromium (Debian's /usr/bin/chromium through
// playwright-core, as test/main/admin/dashboard-browser.test.ts): the operator types the token, fills the form
// (group code, speed, starting round, team names), starts a rehearsal of the recorded match, sees it
// listed and marked in the matches table, pauses it, seeks to round 10 (typed before a refresh of
// the list; an overlay shows round 10), stops it; an upload of a malformed replay file shows the
// service's error and starts nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumOrWarn, openBrowser, type Browser } from '../../helpers/browser.js';
import type { Page } from 'playwright-core';
import { closeAll, overlay } from '../../helpers/clients.js';
import { startTestService, type TestService } from '../../helpers/service.js';

interface PageElement { textContent: string | null; className: string; dataset: Record<string, string | undefined> }
declare const document: { querySelector(selector: string): PageElement | null };

const HAVE_CHROMIUM = chromiumOrWarn('rehearsal browser test');

const TOKEN = 'rehearsal-browser-token-3e9a';

type Frame = { teams: Array<{ teamName: string; roundsWon: number }>; roundNumber: number };

describe.skipIf(!HAVE_CHROMIUM && !process.env.CI)('the dashboard\'s Rehearse panel in headless chromium', () => {
  let svc: TestService;
  let browser: Browser | undefined;
  let page: Page;

  beforeAll(async () => {
    svc = await startTestService({ ADMIN_TOKEN: `ops:${TOKEN}` });
    browser = await openBrowser({ viewport: { width: 1440, height: 1200 }, credentials: { username: 'ops', password: TOKEN } });
    page = browser.page;
    expect((await page.goto(`${svc.rest}/dashboard`))?.status()).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    closeAll();
    await svc?.close();
  });

  const row = (code: string) => page.evaluate((c) => {
    const tr = document.querySelector(`#rh-rows tr[data-code="${c}"]`);
    return tr ? { state: tr.dataset.state, round: tr.dataset.round } : null;
  }, code);
  const message = () => page.textContent('#rh-msg');

  it('starts, lists, pauses, seeks and stops a rehearsal of the recorded match', async () => {
    const code = 'BRRH01';
    const fe = await overlay(svc.broadcast, code);
    await page.fill('#admin-token', TOKEN);
    await page.fill('#rh-code', code);
    await page.selectOption('#rh-speed', '10');
    await page.fill('#rh-round', '2');
    await page.fill('#rh-left-name', 'Browser Left');
    await page.fill('#rh-left-tricode', 'BRL');
    await page.fill('#rh-left-url', 'https://cdn.example.org/brl.png');
    await page.fill('#rh-right-name', 'Browser Right');
    await page.fill('#rh-right-tricode', 'BRR');
    await page.fill('#rh-right-url', 'https://cdn.example.org/brr.png');
    await page.click('#rh-start');
    await expect.poll(message).toBe(`Rehearsal of ${code} started`);
    const f = (await fe.waitFor((x) => (x as unknown as Frame).roundNumber === 2)) as unknown as Frame;
    expect(f.teams.map((t) => t.teamName)).toEqual(['Browser Left', 'Browser Right']);
    await expect.poll(() => row(code)).toMatchObject({ state: 'playing' });
    // Marked as a rehearsal in the matches table (the event stream's rows).
    await expect.poll(() => page.evaluate((c) => document.querySelector(`#rows tr[data-code="${c}"] td.code`)?.className ?? '', code)).toBe('code rehearsal');

    await page.click(`#rh-rows tr[data-code="${code}"] button:has-text("Pause")`);
    await expect.poll(() => row(code)).toMatchObject({ state: 'paused' });

    // The operator types round 10, looks away, and the list refreshes meanwhile (every 2 s): the
    // redrawn row keeps what was typed, and Seek sends it.
    await page.fill(`#rh-rows tr[data-code="${code}"] input.rh-seek-round`, '10');
    await page.focus('#rh-code');
    await page.evaluate((c) => { (document.querySelector(`#rh-rows tr[data-code="${c}"]`) as PageElement).dataset.drawn = 'before'; }, code);
    await expect.poll(() => page.evaluate((c) => document.querySelector(`#rh-rows tr[data-code="${c}"]`)?.dataset.drawn ?? 'gone', code)).toBe('gone');
    expect(await page.inputValue(`#rh-rows tr[data-code="${code}"] input.rh-seek-round`)).toBe('10');
    await page.click(`#rh-rows tr[data-code="${code}"] button:has-text("Seek")`);
    await expect.poll(() => row(code)).toMatchObject({ state: 'paused', round: '10' });
    await fe.waitFor((x) => (x as unknown as Frame).roundNumber === 10);

    await page.click(`#rh-rows tr[data-code="${code}"] button:has-text("Stop")`);
    await expect.poll(() => row(code)).toBeNull();
    expect(await svc.admin.has(code)).toBe(false);
  }, 60_000);

  it('shows the service\'s error for a malformed upload and starts nothing', async () => {
    await page.fill('#rh-code', 'BRRH02');
    await page.selectOption('#rh-recording', 'upload');
    await page.setInputFiles('#rh-file', { name: 'broken.replay', mimeType: 'text/plain', buffer: Buffer.from('{"clientVersion":"0.3.3"},\n{"type":') });
    await page.click('#rh-start');
    await expect.poll(message).toContain('Invalid replay');
    expect(await page.evaluate(() => document.querySelector('#rh-msg')?.className)).toBe('bad');
    expect(await svc.admin.has('BRRH02')).toBe(false);
  }, 30_000);
});
