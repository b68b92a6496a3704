// Every link's health on the dashboard, in a real browser (Debian's chromium, as in
// dashboard-browser.test.ts): an observer that goes silent during a live round is flagged (row
// highlighted and sorted first, ods_matches_observer_silent) within OBSERVER_SILENT_MS + 2 s, and
// unflagged when it sends again; the link fields (role, address, rate, round trip, overlays, frames
// per second) are shown; the row's "Arm standby" action opens a standby window.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumOrWarn, openBrowser, type Browser } from '../../helpers/browser.js';
import type { Page } from 'playwright-core';
import type { Socket } from 'socket.io-client';
import { closeAll, overlay } from '../../helpers/clients.js';
import { recordedMatch, replayObserver, sendRecords } from '../../helpers/recorded.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { atPace } from '../../helpers/waits.js';

interface PageElement { hidden: boolean; textContent: string | null; dataset: Record<string, string | undefined>; querySelector(selector: string): PageElement | null }
declare const document: { querySelector(selector: string): PageElement | null; querySelectorAll(selector: string): ArrayLike<PageElement> };

const HAVE_CHROMIUM = chromiumOrWarn('link health browser test');

const replay = recordedMatch();
const TOKEN = 'link-health-browser-token-4e9a';
const AUTH_KEY = 'link-health-key';
const SILENT_MS = 2000;
/** Records up to the middle of round 4: a live round (combat or shopping), past match_start. */
const LIVE_AT = 443;

describe.skipIf(!HAVE_CHROMIUM && !process.env.CI)('link health in headless chromium', () => {
  let svc: TestService;
  let browser: Browser | undefined;
  let page: Page;
  const observers: Record<string, Socket> = {};
  let streaming = true;
  let streamer: Promise<void> | null = null;

  beforeAll(async () => {
    svc = await startTestService({ AUTH_KEY, ADMIN_TOKEN: `ops:${TOKEN}`, OBSERVER_SILENT_MS: String(SILENT_MS), PING_INTERVAL_MS: '1000', PING_TIMEOUT_MS: '5000' });
    for (const code of ['QUIET1', 'BUSY22']) {
      const { socket, ack } = await replayObserver(svc.ingest, replay, { key: AUTH_KEY, groupCode: code });
      expect(ack.value).toBe(true);
      observers[code] = socket;
      await sendRecords(socket, replay, { pace: 'instant', groupCode: code, to: LIVE_AT });
    }
    await overlay(svc.broadcast, 'BUSY22');
    // BUSY22's observer keeps streaming (a record every 250 ms): never silent.
    let i = LIVE_AT;
    streamer = atPace(250, () => streaming && i < replay.records.length - 50, () => {
      observers.BUSY22.emit('obs_data', JSON.stringify({ ...replay.records[i++], groupCode: 'BUSY22' }));
    });
    browser = await openBrowser({ viewport: { width: 1600, height: 900 }, credentials: { username: 'ops', password: TOKEN } });
    page = browser.page;
  }, 60_000);

  afterAll(async () => {
    streaming = false;
    await streamer;
    await browser?.close();
    closeAll();
    await svc?.close();
  });

  const rowState = (code: string) => page.evaluate((c) => {
    const rows = Array.from(document.querySelectorAll('#rows tr'));
    const row = rows.find((r) => r.dataset.code === c);
    return row ? { silent: row.dataset.silent === '1', first: rows[0]?.dataset.code === c, links: row.querySelector('td.link')?.textContent ?? '' } : null;
  }, code);

  it('flags a silent observer within the threshold + 2 s, first and highlighted, and unflags it when it sends again', async () => {
    expect((await page.goto(`${svc.rest}/dashboard`))?.status()).toBe(200);
    await page.waitForFunction(() => document.querySelectorAll('#rows tr').length === 2, undefined, { timeout: 15_000 });
    // QUIET1's observer has been quiet since the setup: it sends one more message (unflagged), then nothing.
    observers.QUIET1.emit('obs_data', JSON.stringify({ ...replay.records[LIVE_AT - 1], groupCode: 'QUIET1' }));
    const quietSince = Date.now();
    await expect.poll(async () => (await rowState('QUIET1'))?.silent, { timeout: 10_000, interval: 50 }).toBe(false);
    await expect.poll(async () => (await rowState('QUIET1'))?.silent, { timeout: SILENT_MS + 10_000, interval: 100 }).toBe(true);
    const flaggedAfter = Date.now() - quietSince;
    console.log(`silent observer flagged ${flaggedAfter} ms after its last message (threshold ${SILENT_MS} ms)`);
    expect(flaggedAfter).toBeGreaterThanOrEqual(SILENT_MS);
    expect(flaggedAfter).toBeLessThanOrEqual(SILENT_MS + 2000);
    const quiet = (await rowState('QUIET1'))!;
    expect(quiet.first).toBe(true);
    expect(quiet.links).toContain('SILENT observer');
    expect((await rowState('BUSY22'))?.silent).toBe(false);
    expect(await svc.metric('ods_matches_observer_silent')).toBe(1);
    // The admin API says the same.
    const entry = await svc.admin.match('QUIET1');
    expect(entry?.links?.silent).toBe(true);

    // It sends again: unflagged.
    observers.QUIET1.emit('obs_data', JSON.stringify({ ...replay.records[LIVE_AT + 1], groupCode: 'QUIET1' }));
    await expect.poll(async () => (await rowState('QUIET1'))?.silent, { timeout: 10_000, interval: 100 }).toBe(false);
    await expect.poll(() => svc.metric('ods_matches_observer_silent'), { timeout: 10_000 }).toBe(0);
  }, 60_000);

  it('shows each link: the observer (role, address, rate, round trip) and the overlay side (overlays, frames per second)', async () => {
    // The round trip comes with the first Engine.IO ping/pong (PING_INTERVAL_MS = 1 s here).
    await expect.poll(async () => (await rowState('BUSY22'))?.links ?? '', { timeout: 15_000, interval: 200 }).toMatch(/rtt \d+ ms/);
    const busy = (await rowState('BUSY22'))!.links;
    expect(busy).toMatch(/^P/);
    expect(busy).toMatch(/127\.0\.0\.1 · [0-9.]+\/s/);
    expect(busy).toMatch(/1 overlays · [0-9.]+ fps/);
    const entry = await svc.admin.match('BUSY22');
    expect(entry?.links).toMatchObject({ silent: false, overlay: { connected: 1 }, resumes10m: 0, reconnects10m: 0 });
    expect(entry?.links?.observers).toEqual([expect.objectContaining({ role: 'primary', address: '127.0.0.1' })]);
    expect(entry!.links!.observers[0].messagesPerSecond).toBeGreaterThan(0);
    expect(entry!.links!.overlay.framesPerSecond).toBeGreaterThan(0);
  }, 30_000);

  it('arms a standby from the match\'s row', async () => {
    await page.fill('#admin-token', TOKEN);
    await page.click('tr[data-code="BUSY22"] button.arm');
    await expect.poll(() => page.textContent('#action-result'), { timeout: 10_000 }).toMatch(/^BUSY22: standby window open until/);
    await expect.poll(async () => (await svc.admin.match('BUSY22'))?.links?.standby?.armedUntil ?? 0, { timeout: 10_000 }).toBeGreaterThan(Date.now());
  }, 30_000);
});
