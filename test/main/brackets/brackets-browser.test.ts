// The dashboard's "Brackets" panel in headless chromium (Debian's /usr/bin/chromium through
// playwright-core, as the other dashboard tests): the operator links a start.gg event from the panel
// with reports held for confirmation; its best of 3 appears with its group code, stream and station;
// after each map played from the recording the report is held (nothing reaches start.gg) until the
// operator clicks Confirm on the panel, then it goes: the first map's game data, then both maps and
// the winner.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { chromiumOrWarn, openBrowser, type Browser } from '../../helpers/browser.js';
import { closeAll, serverDisconnect } from '../../helpers/clients.js';
import { fixture, playWholeMap, withMatchId } from '../../helpers/fixtures.js';
import { recordedMatch } from '../../helpers/recorded.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { StartggStandin } from '../../helpers/startgg.js';
import { bo3Set, linkedSet, OWLS, WOLVES } from '../../helpers/brackets.js';

interface PageElement { textContent: string | null; dataset: Record<string, string | undefined> }
declare const document: { querySelectorAll(selector: string): ArrayLike<PageElement> };

const HAVE_CHROMIUM = chromiumOrWarn('brackets browser test');
const TOKEN = 'brackets-browser-token-9e1c44';
const AUTH_KEY = 'BRACKETS-BROWSER-KEY';
const SG_TOKEN = 'sg-organiser-token-browser-0b7f';
const SLUG = 'tournament/autumn-cup-2026/event/valorant-held';
const replay = recordedMatch();

describe.skipIf(!HAVE_CHROMIUM && !process.env.CI)('the dashboard\'s Brackets panel in headless chromium: reports held for confirmation', () => {
  let sg: StartggStandin;
  let svc: TestService;
  let browser: Browser | undefined;
  let page: Page;
  let code = '';

  beforeAll(async () => {
    sg = await StartggStandin.start(SG_TOKEN);
    sg.events.set(SLUG, { id: 79, slug: SLUG, name: 'Autumn Cup 2026 – held', sets: [bo3Set(9201, 'autumncup_main', 7)] });
    svc = await startTestService({ ADMIN_TOKEN: `ops:${TOKEN}`, AUTH_KEY, STARTGG_API_URL: sg.url, BRACKETS_POLL_MS: '1000', BRACKETS_RETRY_MS: '200', BRACKETS_RETRY_MAX_MS: '1000' });
    browser = await openBrowser({ viewport: { width: 1440, height: 1600 }, credentials: { username: 'ops', password: TOKEN } });
    page = browser.page;
    expect((await page.goto(`${svc.rest}/dashboard`))?.status()).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    closeAll();
    await svc?.close();
    await sg?.close();
  });

  const rows = () => page.evaluate(() => Array.from(document.querySelectorAll('#bk-set-rows tr')).map((tr) => `${tr.dataset.code}:${tr.dataset.report}`));

  it('links the event from the panel; its match appears with its group code, stream and station', async () => {
    await page.fill('#admin-token', TOKEN);
    await page.fill('#bk-url', `https://www.start.gg/${SLUG}`);
    await page.fill('#bk-token', SG_TOKEN);
    await page.selectOption('#bk-mode', 'confirm');
    await page.click('#bk-link');
    await expect.poll(() => page.textContent('#bk-msg')).toBe(`Linked: https://www.start.gg/${SLUG}`);
    expect(await page.inputValue('#bk-token')).toBe(''); // not left in the page
    await expect.poll(rows, { timeout: 10_000 }).toHaveLength(1);
    code = (await linkedSet(svc.rest, TOKEN, 9201))!.groupCode;
    expect(await rows()).toEqual([`${code}:none`]);
    const row = `#bk-set-rows tr[data-code="${code}"]`;
    expect(await page.textContent(`${row} td.bk-code`)).toBe(code);
    expect(await page.textContent(`${row} td:nth-child(2)`)).toBe('autumncup_main / 7');
    expect(await page.textContent('#bk-link-rows tr td:nth-child(2)')).toBe('held for confirmation');
    await expect.poll(() => page.textContent('#bk-link-rows tr td:nth-child(1)'), { timeout: 5_000 }).toBe('Autumn Cup 2026 – held (startgg)');
  }, 30_000);

  it('holds each map\'s report until Confirm is clicked, then sends it', async () => {
    const row = `#bk-set-rows tr[data-code="${code}"]`;
    const play = async (n: number) => {
      const m = await playWholeMap(svc, AUTH_KEY, code, withMatchId(replay, `held-map-${n}`), { left: WOLVES.name, right: OWLS.name }, [WOLVES.name, OWLS.name]);
      if (m.observer.connected) await serverDisconnect(m.observer, 30_000);
      await expect.poll(async () => (await fixture(svc.rest, TOKEN, code))?.results.length, { timeout: 15_000 }).toBe(n);
    };
    // Map 1 (the Owls win 13–6): held, nothing sent.
    await play(1);
    await expect.poll(rows, { timeout: 10_000 }).toEqual([`${code}:held`]);
    expect(await page.textContent(`${row} td.bk-report .bk-state`)).toBe('held: 6–13');
    expect(sg.mutations).toHaveLength(0);
    await page.click(`${row} button.confirm`);
    await expect.poll(() => page.textContent('#bk-msg')).toBe(`${code}: report confirmed`);
    await expect.poll(() => sg.mutations.length, { timeout: 10_000 }).toBe(1);
    expect(sg.mutations[0]).toMatchObject({ name: 'reportBracketSet', args: { setId: '9201', gameData: [{ gameNum: 1, winnerId: '502', entrant1Score: 6, entrant2Score: 13 }] } });
    await expect.poll(rows, { timeout: 10_000 }).toEqual([`${code}:sent`]);

    // Map 2 (the Owls again): the series is decided; the whole state with the winner is held, then confirmed.
    await play(2);
    await expect.poll(rows, { timeout: 10_000 }).toEqual([`${code}:held`]);
    expect(await page.textContent(`${row} td.bk-report .bk-state`)).toBe('held: 6–13, 6–13, winner 502');
    expect(sg.mutations).toHaveLength(1);
    // A confirmation of what was held before (map 1 alone) confirms nothing: the operator looks again.
    const stale = { setId: '9201', games: [{ num: 1, winnerId: '502', scores: [6, 13], stageId: '104' }], winnerId: null };
    const refused = await fetch(`${svc.rest}/admin/brackets/sets/${code}/confirm`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ held: stale }) });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toEqual({ error: 'The held report changed (another map ended): look at it again' });
    expect(sg.mutations).toHaveLength(1);
    await page.click(`${row} button.confirm`);
    await expect.poll(() => sg.mutations.length, { timeout: 10_000 }).toBe(2);
    expect(sg.mutations[1].args).toMatchObject({ setId: '9201', winnerId: '502', gameData: [{ gameNum: 1 }, { gameNum: 2, winnerId: '502' }] });
    await expect.poll(rows, { timeout: 10_000 }).toEqual([`${code}:completed`]);
    expect(sg.set(9201)).toMatchObject({ state: 3, winnerId: 502 });
    // Everything sent and answered, on the panel.
    await page.click(`${row} button.exchanges`);
    const lines = () => page.evaluate((c) => Array.from(document.querySelectorAll(`#bk-set-rows tr[data-code="${c}"] .bk-ex div`)).map((d) => d.textContent ?? ''), code);
    await expect.poll(lines, { timeout: 5_000 }).toHaveLength(2);
    const shown = await lines();
    expect(shown[0]).toMatch(/^\d\d:\d\d:\d\d reportBracketSet taken: \{"setId":"9201","gameData":\[\{"gameNum":1,"winnerId":"502","entrant1Score":6,"entrant2Score":13/);
    expect(shown[1]).toContain('"winnerId":"502","gameData"');
    expect(shown[1]).toContain('→ {"reportBracketSet":[{"id":"9201","state":3,"winnerId":502}]}');
    expect(shown.join('\n')).not.toContain(SG_TOKEN);
    expect(sg.invalid()).toEqual([]);
    // Without the admin token the confirmation is refused.
    expect((await fetch(`${svc.rest}/admin/brackets/sets/${code}/confirm`, { method: 'POST' })).status).toBe(401);
    expect((await fetch(`${svc.rest}/admin/brackets/sets/${code}/confirm`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(409); // nothing held
  }, 60_000);
});
