#!/usr/bin/env node
// One cold Playwright observation as a whole process, for `pagesnap bench-live --cold`:
// launch Debian's Chromium through playwright-core, `goto` the page until its load event, print
// `page.locator('body').ariaSnapshot()`, close. The same work as `pagesnap snapshot PAGE --strategy aria`.
//
// Usage: node cold-aria.mjs PAGE.html|URL

import { launch } from './chromium.mjs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const target = process.argv[2];
if (!target) {
  console.error('usage: node cold-aria.mjs PAGE.html|URL');
  process.exit(2);
}
const url = target.includes('://') ? target : pathToFileURL(path.resolve(target)).href;
const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  page.on('dialog', (dialog) => dialog.accept().catch(() => {}));
  await page.goto(url, { waitUntil: 'load', timeout: 30_000 });
  process.stdout.write((await page.locator('body').ariaSnapshot()) + '\n');
} finally {
  await browser.close();
}
