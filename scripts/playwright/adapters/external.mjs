// The side of pagesnap's external strategy protocol (`pagesnap.external/1`) every adapter here shares:
// attach to pagesnap's Chromium with playwright-core's `connectOverCDP`, find the tab pagesnap names,
// and answer one JSON line per observation. docs/external.md documents the protocol.
//
//   → {"type": "hello", "protocol": "pagesnap.external/1", "ws": "ws://127.0.0.1:…/devtools/browser/…"}
//   ← {"ready": true, "about": "playwright-core 1.65.1: …"}
//   → {"type": "observe", "ws": "…", "target": "<CDP target id>", "url": "…", "step": 1,
//      "viewport": {"width": 1280, "height": 720}}
//   ← {"text": "…", "refs": {"e5": {"backendNodeId": 42}}, "observe_ms": 4.2}   or {"error": "…"}
//
// Nothing is ever written to stdout but answers; diagnostics go to stderr. The process ends when
// stdin closes (never `browser.close()`: over CDP that would close pagesnap's browser).

import { chromium } from 'playwright-core';
import { createInterface } from 'node:readline';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
export const PLAYWRIGHT_VERSION = JSON.parse(
  readFileSync(path.join(here, '../node_modules/playwright-core/package.json'), 'utf8'),
).version;

/** How long one observation may take inside Playwright (pagesnap bounds the whole call too). */
export const TIMEOUT_MS = 30_000;

const send = (object) => process.stdout.write(JSON.stringify(object) + '\n');
export const ms = (value) => Math.round(value * 1000) / 1000;

/** Serves the protocol; `adapter.observe(page, cdp)` returns the answer of one observation. */
export async function serve(adapter) {
  let browser = null;
  let endpoint = null;
  // CDP target id → { page, cdp }; pages already looked at, found or not.
  const tabs = new Map();
  const seen = new WeakSet();

  async function attach(ws) {
    if (browser && endpoint === ws && browser.isConnected()) return browser;
    browser = await chromium.connectOverCDP(ws, { timeout: TIMEOUT_MS });
    endpoint = ws;
    tabs.clear();
    // pagesnap accepts alert()/confirm()/prompt(); without a listener Playwright would dismiss them.
    for (const context of browser.contexts()) {
      context.on('dialog', (dialog) => dialog.accept().catch(() => {}));
    }
    return browser;
  }

  // Playwright learns of a tab pagesnap opened through `Target.setAutoAttach`, a moment after it
  // exists: look until it shows up or the limit passes.
  async function tab(target, limitMs) {
    const deadline = performance.now() + limitMs;
    for (;;) {
      if (tabs.has(target)) return tabs.get(target);
      for (const context of browser.contexts()) {
        for (const page of context.pages()) {
          if (seen.has(page)) continue;
          seen.add(page);
          const cdp = await context.newCDPSession(page);
          const { targetInfo } = await cdp.send('Target.getTargetInfo');
          tabs.set(targetInfo.targetId, { page, cdp });
          page.on('close', () => tabs.delete(targetInfo.targetId));
        }
      }
      if (tabs.has(target)) return tabs.get(target);
      if (performance.now() > deadline) throw new Error(`tab ${target} not found in the browser`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

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
      if (request.type === 'hello') {
        await attach(request.ws);
        send({ ready: true, about: `playwright-core ${PLAYWRIGHT_VERSION}: ${adapter.about}` });
      } else if (request.type === 'observe') {
        await attach(request.ws);
        const { page, cdp } = await tab(request.target, 5_000);
        send(await adapter.observe(page, cdp));
      } else {
        send({ error: `unknown request type ${JSON.stringify(request.type)}` });
      }
    } catch (e) {
      send({ error: String(e.message || e).split('\n')[0] });
    }
  }
  process.exit(0);
}
