// The operator dashboard end to end in a real browser: Debian's chromium (/usr/bin/chromium) driven
// by playwright-core, never a downloaded browser. The service runs with several matches replayed
// to different points; the page must list them with the right scores, show a score change without
// a reload, filter and sort. A screenshot is kept in test-artifacts/dashboard.png; with
// DASHBOARD_SCREENSHOT=docs it also refreshes the committed docs/dashboard.png.
//
// Skipped (with a message) only when /usr/bin/chromium does not exist: `.ci/run` installs it from
// Debian's packages, so in CI it runs. A chromium that exists but fails to start fails the test.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumOrWarn, openBrowser, type Browser } from '../../helpers/browser.js';
import type { Page } from 'playwright-core';
import type { Socket } from 'socket.io-client';
import { closeAll, overlay } from '../../helpers/clients.js';
import { recordedMatch, replayObserver, sendRecords } from '../../helpers/recorded.js';
import { startTestService, type TestService } from '../../helpers/service.js';

// The page's globals, typed just enough for the page.evaluate callbacks (loading the DOM lib would
// retype fetch and Headers for every file of the typecheck).
interface PageElement { hidden: boolean; textContent: string | null; dataset: Record<string, string | undefined>; querySelector(selector: string): PageElement | null }
declare const document: { querySelector(selector: string): PageElement | null; querySelectorAll(selector: string): ArrayLike<PageElement>; body: PageElement };
declare const performance: { now(): number; getEntriesByType(type: string): Array<{ responseEnd: number }> };
declare const window: Record<string, unknown>;

const HAVE_CHROMIUM = chromiumOrWarn('dashboard browser test');
const ROOT = path.resolve(import.meta.dirname, '../../..');
const ARTIFACT = path.join(ROOT, 'test-artifacts', 'dashboard.png');
const DOCS_SCREENSHOT = path.join(ROOT, 'docs', 'dashboard.png');

const replay = recordedMatch();

const TOKEN = 'dashboard-browser-token-7c1d';
const AUTH_KEY = 'dashboard-key';
/** Group code → records sent before the page opens, and the score [left, right] they give. */
const MATCHES: Array<{ code: string; to: number; score: [number, number]; left: string; right: string }> = [
  { code: 'BRWSR1', to: 443, score: [1, 2], left: 'Sentinels', right: 'Fnatic' },
  { code: 'BRWSR2', to: 1033, score: [1, 6], left: 'Paper Rex', right: 'LOUD' },
  { code: 'BRWSR3', to: 150, score: [0, 0], left: 'Team Heretics', right: 'EDward Gaming' },
  { code: 'GRAND1', to: 1926, score: [4, 9], left: 'G2 Esports', right: 'Team Liquid' },
  { code: 'QUALA7', to: 2049, score: [5, 9], left: 'DRX', right: 'Gen.G' },
  { code: 'QUALB3', to: 20, score: [0, 0], left: 'NRG', right: 'Cloud9' },
];
const tricode = (name: string) => name.replace(/[^A-Za-z0-9]/g, '').slice(0, 3).toUpperCase();

describe.skipIf(!HAVE_CHROMIUM && !process.env.CI)('dashboard in headless chromium', () => {
  let svc: TestService;
  let browser: Browser | undefined;
  let page: Page;
  const observers: Socket[] = [];

  beforeAll(async () => {
    svc = await startTestService({ AUTH_KEY, ADMIN_TOKEN: `ops:${TOKEN}`, SHARD_WORKERS: '2' });
    await overlay(svc.broadcast, 'BRWSR1');
    await overlay(svc.broadcast, 'BRWSR1');
    await overlay(svc.broadcast, 'GRAND1');
    await Promise.all(MATCHES.map(async (m, i) => {
      const team = (t: unknown, name: string) => ({ ...(t as Record<string, unknown>), name, tricode: tricode(name) });
      const { socket: obs, ack } = await replayObserver(svc.ingest, replay, {
        key: AUTH_KEY, groupCode: m.code, leftTeam: team(replay.header.leftTeam, m.left), rightTeam: team(replay.header.rightTeam, m.right),
      });
      observers[i] = obs; // in the order of MATCHES
      expect(ack.value).toBe(true);
      await sendRecords(obs, replay, { pace: 'instant', groupCode: m.code, to: m.to });
    }));

    browser = await openBrowser({ viewport: { width: 1440, height: 900 }, credentials: { username: 'ops', password: TOKEN } });
    page = browser.page;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    for (const o of observers) o.close();
    closeAll();
    await svc?.close();
  });

  const score = (code: string) => page.evaluate((c) => {
    const row = document.querySelector(`tr[data-code="${c}"]`);
    return row ? [row.querySelector('.score-left')?.textContent, row.querySelector('.score-right')?.textContent].join('-') : null;
  }, code);
  const visibleCodes = () => page.evaluate(() => Array.from(document.querySelectorAll('#rows tr')).filter((r) => !r.hidden).map((r) => r.dataset.code));

  it('lists every live match with its teams, score, map and sockets', async () => {
    const t0 = Date.now();
    const response = await page.goto(`${svc.rest}/dashboard`);
    expect(response?.status()).toBe(200);
    await page.waitForFunction((n) => document.querySelectorAll('#rows tr').length === n, MATCHES.length, { timeout: 15_000 });
    console.info(`dashboard: ${MATCHES.length} rows rendered ${Date.now() - t0} ms after navigation`);
    for (const m of MATCHES) {
      await expect.poll(() => score(m.code), { timeout: 15_000, interval: 100 }).toBe(m.score.join('-'));
    }
    const row1 = await page.evaluate(() => {
      const row = document.querySelector('tr[data-code="BRWSR1"]')!;
      const text = (sel: string) => row.querySelector(sel)?.textContent;
      return { left: text('.left'), right: text('.right'), map: text('.map'), observers: text('.observers'), overlays: text('.overlays'), round: text('.round') };
    });
    expect(row1).toEqual({ left: 'SENSentinels', right: 'FNAFnatic', map: 'Icebox', observers: '1', overlays: '2', round: expect.stringMatching(/^[34]$/) });
    await expect.poll(() => page.textContent('#t-matches')).toBe(String(MATCHES.length));
    expect(await page.textContent('#status')).toBe('live');
  });

  it('shows a score change without a reload', async () => {
    await page.evaluate(() => { window.marker = 'same page'; });
    const updatesBefore = Number(await page.evaluate(() => document.body.dataset.updates));
    expect(await score('BRWSR3')).toBe('0-0');
    // Round 1 ends in the recording: score 0–1.
    const idx = MATCHES.findIndex((m) => m.code === 'BRWSR3');
    await sendRecords(observers[idx], replay, { pace: 'instant', groupCode: 'BRWSR3', from: 150, to: 175 });
    await expect.poll(() => score('BRWSR3'), { timeout: 15_000, interval: 100 }).toBe('0-1');
    expect(await page.evaluate(() => window.marker)).toBe('same page');
    expect(await page.evaluate(() => performance.getEntriesByType('navigation').length)).toBe(1);
    expect(Number(await page.evaluate(() => document.body.dataset.updates))).toBeGreaterThan(updatesBefore);
  });

  it('filters and sorts', async () => {
    await page.fill('#filter', 'qual');
    expect((await visibleCodes()).sort()).toEqual(['QUALA7', 'QUALB3']);
    await page.fill('#filter', 'liquid');
    expect(await visibleCodes()).toEqual(['GRAND1']);
    await page.fill('#filter', '');
    expect(await visibleCodes()).toHaveLength(MATCHES.length);
    await page.click('th[data-key="score"]'); // ascending by rounds played
    const byRounds = ['QUALB3', 'BRWSR3', 'BRWSR1', 'BRWSR2', 'GRAND1', 'QUALA7']; // 0, 1, 3, 7, 13, 14 rounds
    expect(await visibleCodes()).toEqual(byRounds);
    await page.click('th[data-key="score"]'); // descending
    expect(await visibleCodes()).toEqual([...byRounds].reverse());
    await page.click('th[data-key="groupCode"]');
    expect(await visibleCodes()).toEqual([...MATCHES.map((m) => m.code)].sort());
  });

  it('keeps a screenshot', async () => {
    const updates = Number(await page.evaluate(() => document.body.dataset.updates));
    await page.waitForFunction((n) => Number(document.body.dataset.updates) > n, updates, { timeout: 15_000 }); // one more update, so the chart has a few points
    fs.mkdirSync(path.dirname(ARTIFACT), { recursive: true });
    await page.screenshot({ path: ARTIFACT, fullPage: true });
    expect(fs.statSync(ARTIFACT).size).toBeGreaterThan(10_000);
    if (process.env.DASHBOARD_SCREENSHOT === 'docs') fs.copyFileSync(ARTIFACT, DOCS_SCREENSHOT);
  });
});
