#!/usr/bin/env node
// Reference ARIA snapshots from Playwright itself, for comparison with pagesnap's `aria` strategy
// (harness/tests/playwright_aria.rs).
//
// Usage:
//   node aria-snapshot.mjs OUT_DIR page.html [page.html ...]
//   echo '[{"path": "fixtures/sites/login/index.html", "name": "login", "wait_for": "body.ready"}]' \
//     | node aria-snapshot.mjs OUT_DIR
//
// Each input is a local HTML file path (or, on stdin, a JSON list of paths or of objects with `path`,
// optional `name` and optional `wait_for`: a CSS selector or a delay like "200ms", as in
// fixtures/manifest.toml). For each page it writes:
//   OUT_DIR/<name>.yaml       page.locator('body').ariaSnapshot()   (default mode)
//   OUT_DIR/<name>.page.yaml  page.ariaSnapshot()                   (when this Playwright has it)
//   OUT_DIR/<name>.ai.yaml    page.ariaSnapshot({ mode: 'ai' })      (when this Playwright has it)
// <name> defaults to the file name without extension, or `<folder>-<stem>` when stems repeat.
//
// Debian's Chromium is used through playwright-core; no browser is ever downloaded.

import { launch } from './chromium.mjs';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const TIMEOUT_MS = 30_000;

function usage(message) {
  if (message) console.error(`aria-snapshot: ${message}`);
  console.error('usage: node aria-snapshot.mjs OUT_DIR [page.html ...]   (or a JSON list on stdin)');
  process.exit(2);
}

function readInputs(args) {
  let entries;
  if (args.length > 0) {
    entries = args.map((p) => ({ path: p }));
  } else {
    const raw = readFileSync(0, 'utf8').trim();
    if (!raw) usage('no pages given');
    let parsed;
    try {
      parsed = JSON.parse(raw);
    } catch (e) {
      usage(`stdin is not JSON: ${e.message}`);
    }
    if (!Array.isArray(parsed)) usage('stdin must be a JSON list');
    entries = parsed.map((e) => (typeof e === 'string' ? { path: e } : e));
  }
  const stems = new Map();
  for (const e of entries) {
    if (!e || typeof e.path !== 'string') usage(`bad entry ${JSON.stringify(e)}`);
    const stem = path.basename(e.path, path.extname(e.path));
    stems.set(stem, (stems.get(stem) || 0) + 1);
  }
  return entries.map((e) => {
    const stem = path.basename(e.path, path.extname(e.path));
    const folder = path.basename(path.dirname(path.resolve(e.path)));
    const name = e.name || (stems.get(stem) > 1 ? `${folder}-${stem}` : stem);
    return { path: e.path, name, waitFor: e.wait_for };
  });
}

async function waitFor(page, wait) {
  if (!wait) return;
  const delay = /^(\d+)\s*ms$/.exec(wait.trim());
  if (delay) {
    await page.waitForTimeout(Number(delay[1]));
  } else {
    await page.waitForSelector(wait, { state: 'attached', timeout: TIMEOUT_MS });
  }
}

async function main() {
  const [outDir, ...rest] = process.argv.slice(2);
  if (!outDir || outDir === '-h' || outDir === '--help') usage();
  const inputs = readInputs(rest);
  mkdirSync(outDir, { recursive: true });
  const browser = await launch();
  let failed = 0;
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    // alert()/confirm()/prompt() are accepted, as pagesnap's recorder does.
    context.on('dialog', (dialog) => dialog.accept().catch(() => {}));
    for (const input of inputs) {
      const page = await context.newPage();
      try {
        const url = pathToFileURL(path.resolve(input.path)).href;
        await page.goto(url, { waitUntil: 'load', timeout: TIMEOUT_MS });
        await waitFor(page, input.waitFor);
        const body = await page.locator('body').ariaSnapshot({ timeout: TIMEOUT_MS });
        writeFileSync(path.join(outDir, `${input.name}.yaml`), body + '\n');
        if (typeof page.ariaSnapshot === 'function') {
          const whole = await page.ariaSnapshot({ timeout: TIMEOUT_MS });
          writeFileSync(path.join(outDir, `${input.name}.page.yaml`), whole + '\n');
          const ai = await page.ariaSnapshot({ mode: 'ai', timeout: TIMEOUT_MS });
          writeFileSync(path.join(outDir, `${input.name}.ai.yaml`), ai + '\n');
        }
        console.log(`${input.name}: ${body.split('\n').length} lines`);
      } catch (e) {
        failed += 1;
        console.error(`${input.name}: ${input.path}: ${e.message}`);
      } finally {
        await page.close();
      }
    }
  } finally {
    await browser.close();
  }
  if (failed > 0) process.exit(1);
}

await main();
