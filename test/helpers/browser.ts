// Headless Chromium for the dashboard's browser tests: Debian's chromium (/usr/bin/chromium; .ci/run
// installs it) driven by playwright-core, never a downloaded browser, with the flags this machine's
// closed network needs (no background networking, no component updates), in a throwaway profile.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const HAVE_CHROMIUM = fs.existsSync(CHROMIUM);

/** Says why `what` is skipped on a machine without chromium; true when it runs. */
export function chromiumOrWarn(what: string): boolean {
  if (!HAVE_CHROMIUM) console.warn(`${what} SKIPPED: ${CHROMIUM} not found. Install Debian's chromium (apt-get update && apt-get install -y chromium); .ci/run does this when it runs as root.`);
  return HAVE_CHROMIUM; // with CI set a browser test runs anyway, and fails at chromium's launch
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Closes the browser and removes its profile. */
  close(): Promise<void>;
}

/**
 * A headless browser with one page; `credentials` are sent as HTTP Basic when the server asks (the
 * dashboard page's login); `headers` go with every request (e.g. credentials a browser has cached).
 */
export async function openBrowser(options: { viewport: { width: number; height: number }; credentials?: { username: string; password: string }; headers?: Record<string, string> }): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ods-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: options.viewport,
    ...(options.credentials ? { httpCredentials: options.credentials } : {}),
    ...(options.headers ? { extraHTTPHeaders: options.headers } : {}),
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
