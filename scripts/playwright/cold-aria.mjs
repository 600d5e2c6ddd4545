#!/usr/bin/env node
// One cold Playwright observation as a whole process, for `pagesnap bench-live --cold`:
// launch Debian's Chromium through playwright-core, `goto` the page until its load event, print
// `page.locator('body').ariaSnapshot()`, close. The same work as `pagesnap snapshot PAGE --strategy aria`.
//
// Usage: node cold-aria.mjs PAGE.html|URL

import { chromium } from 'playwright-core';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const EXECUTABLE = process.env.PAGESNAP_CHROMIUM || '/usr/bin/chromium';
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--allow-file-access-from-files',
  '--hide-scrollbars',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1',
];

const target = process.argv[2];
if (!target) {
  console.error('usage: node cold-aria.mjs PAGE.html|URL');
  process.exit(2);
}
const url = target.includes('://') ? target : pathToFileURL(path.resolve(target)).href;
const browser = await chromium.launch({ executablePath: EXECUTABLE, headless: true, args: ARGS });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  page.on('dialog', (dialog) => dialog.accept().catch(() => {}));
  await page.goto(url, { waitUntil: 'load', timeout: 30_000 });
  process.stdout.write((await page.locator('body').ariaSnapshot()) + '\n');
} finally {
  await browser.close();
}
