#!/usr/bin/env node
// Times Playwright's own `page.locator('body').ariaSnapshot()` for `pagesnap bench-live --vs-playwright`.
//
// A long-lived helper: it launches Debian's Chromium once through playwright-core, prints one JSON
// line `{"ready": true, "playwright": VERSION, "browser": VERSION}`, then reads one JSON request per
// line on stdin and answers each with one JSON line on stdout:
//
//   → {"url": "file:///…/page.html", "runs": 6, "width": 1280, "height": 720, "timeout_ms": 30000}
//   ← {"first_ms": 129.4, "warm_ms": [44.1, …], "lines": 812}     (or {"error": "…"})
//
// Per request: a new page with that viewport, `goto` until the load event, then the first
// ariaSnapshot() and `runs` more on the loaded page, each timed alone; the page is closed after.
// No browser is ever downloaded.

import { launch } from './chromium.mjs';
import { createInterface } from 'node:readline';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const version = JSON.parse(
  readFileSync(path.join(here, 'node_modules/playwright-core/package.json'), 'utf8'),
).version;

const ms = (value) => Math.round(value * 1000) / 1000;
const send = (object) => process.stdout.write(JSON.stringify(object) + '\n');

async function measure(context, request) {
  const timeout = request.timeout_ms || 30_000;
  const page = await context.newPage();
  try {
    await page.setViewportSize({ width: request.width || 1280, height: request.height || 720 });
    await page.goto(request.url, { waitUntil: 'load', timeout });
    const body = page.locator('body');
    let started = performance.now();
    const first = await body.ariaSnapshot({ timeout });
    const firstMs = ms(performance.now() - started);
    const warm = [];
    for (let k = 0; k < (request.runs ?? 6); k++) {
      started = performance.now();
      await body.ariaSnapshot({ timeout });
      warm.push(ms(performance.now() - started));
    }
    return { first_ms: firstMs, warm_ms: warm, lines: first.split('\n').length };
  } finally {
    await page.close().catch(() => {});
  }
}

async function main() {
  const browser = await launch();
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  // alert()/confirm()/prompt() are accepted, as pagesnap's sessions do.
  context.on('dialog', (dialog) => dialog.accept().catch(() => {}));
  send({ ready: true, playwright: version, browser: browser.version() });
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    let request;
    try {
      request = JSON.parse(line);
    } catch (e) {
      send({ error: `request is not JSON: ${e.message}` });
      continue;
    }
    try {
      send(await measure(context, request));
    } catch (e) {
      send({ error: String(e.message || e).split('\n')[0] });
    }
  }
  await browser.close();
}

main().catch((e) => {
  console.error(`bench-aria: ${e.message || e}`);
  process.exit(1);
});
