#!/usr/bin/env node
// Capture primitives side by side, for `scripts/bench-primitives` (issue 59): on each page, in one browser and
// one process, Playwright's warm `page.locator('body').ariaSnapshot()` against three ways of reading the page
// that a live capture could be built on, each sent alone over the page's CDP session and timed with its round
// trip:
//
//   snapshot  `DOMSnapshot.captureSnapshot` as pagesnap calls it (the 21 computed styles, paint order): the
//             primitive pagesnap's capture is built on, without the facts, listener, scroll-box and layout
//             calls around it, without its parse and without the engine;
//   walk      an in-page collector of what the snapshot gives the engine (every node, its attributes, the 21
//             styles and the box of every element, the box of every text), answered as one JSON string.
//             Still less than the snapshot: no paint order, no line boxes, no pseudo elements, no shadow
//             roots or frames;
//   pruned    the walk without the text of scripts, styles and templates and without display:none subtrees
//             (their elements only);
//   hit       the pruned walk deciding, for each text in the viewport, whether something else is painted over
//             it, by hit-testing the middle of its box (`document.elementFromPoint`): what paint order decides
//             for pagesnap now (covered text, modal occlusion). A hit test answers for the viewport only.
//
// With `--options`, the snapshot's own options instead of the collectors: what each costs of it.
//
//   no-paint    the snapshot without paint order;
//   no-styles   without the 21 computed styles (paint order kept);
//   dom-only    without either: the nodes, their attributes and text, and the layout boxes.
//
// Prints one JSON line per page: {"page", "ariaSnapshot", "snapshot", "walk", "pruned", "hit"} (or, with
// `--options`, {"page", "ariaSnapshot", "snapshot", "no-paint", "no-styles", "dom-only"}; medians in ms of
// `runs` warm calls each, interleaved), or {"page", "error"}.
//
// Usage: PAGESNAP_BROWSER_COMMAND="$(pagesnap doctor --launch)" node capture-primitives.mjs [--runs N] [--options] PAGE.html…

import { launch } from './chromium.mjs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

// The computed styles pagesnap asks the snapshot for (browser/src/capture/snapshot/mod.rs: COMPUTED_STYLES).
const STYLES = [
  'display', 'visibility', 'opacity', 'position', 'z-index', 'cursor', 'overflow-x', 'overflow-y',
  'pointer-events', 'background-color', 'content', 'color', '-webkit-text-fill-color', 'font-size', 'clip',
  'clip-path', 'background-image', 'background-clip', 'text-shadow', '-webkit-text-stroke-width',
  'content-visibility',
];

// Runs in the page. `pruned`: skip what no person sees; `hit`: hit-test each text in the viewport (see above).
function collect(styles, pruned, hit) {
  const strings = new Map();
  const table = [];
  const string = (value) => {
    let at = strings.get(value);
    if (at === undefined) {
      at = table.length;
      strings.set(value, at);
      table.push(value);
    }
    return at;
  };
  const skipped = new Set(['script', 'style', 'template', 'noscript']);
  const nodes = [];
  const range = document.createRange();
  const walk = (node, parent) => {
    const at = nodes.length;
    if (node.nodeType === Node.ELEMENT_NODE) {
      const attributes = [];
      for (const attribute of node.attributes) attributes.push(string(attribute.name), string(attribute.value));
      if (pruned && skipped.has(node.localName)) {
        nodes.push([parent, 1, string(node.localName), attributes]);
        return;
      }
      const style = getComputedStyle(node);
      if (pruned && style.display === 'none') {
        nodes.push([parent, 1, string(node.localName), attributes, null]);
        return;
      }
      const box = node.getBoundingClientRect();
      nodes.push([
        parent, 1, string(node.localName), attributes,
        styles.map((name) => string(style.getPropertyValue(name))),
        [box.x, box.y, box.width, box.height],
      ]);
    } else if (node.nodeType === Node.TEXT_NODE) {
      range.selectNodeContents(node);
      const box = range.getBoundingClientRect();
      let covered = null;
      if (hit && box.width && box.height) {
        const x = box.x + box.width / 2;
        const y = box.y + box.height / 2;
        if (x >= 0 && y >= 0 && x < innerWidth && y < innerHeight) {
          const top = document.elementFromPoint(x, y);
          const owner = node.parentElement;
          covered = !(top && owner && (top === owner || owner.contains(top) || top.contains(owner)));
        }
      }
      nodes.push([parent, 3, string(node.data), box.width ? [box.x, box.y, box.width, box.height] : null, covered]);
    } else {
      nodes.push([parent, node.nodeType]);
    }
    for (let child = node.firstChild; child; child = child.nextSibling) walk(child, at);
  };
  walk(document, -1);
  return JSON.stringify({ nodes, table });
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const ms = (value) => Math.round(value * 100) / 100;

async function timed(call) {
  const started = performance.now();
  await call();
  return performance.now() - started;
}

async function main() {
  const args = process.argv.slice(2);
  let runs = 7;
  const at = args.indexOf('--runs');
  if (at >= 0) {
    runs = Number(args[at + 1]);
    if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs ${args[at + 1]}: not a whole number ≥ 1`);
    args.splice(at, 2);
  }
  const options = args.indexOf('--options');
  if (options >= 0) args.splice(options, 1);
  if (!args.length) throw new Error('usage: node capture-primitives.mjs [--runs N] [--options] PAGE.html…');
  const browser = await launch();
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    context.on('dialog', (dialog) => dialog.accept().catch(() => {}));
    for (const file of args) {
      const page = await context.newPage();
      const name = path.basename(file, '.html');
      try {
        await page.goto(pathToFileURL(path.resolve(file)).href, { waitUntil: 'load', timeout: 30_000 });
        const cdp = await context.newCDPSession(page);
        const body = page.locator('body');
        const evaluate = async (pruned, hit = false) => {
          const answer = await cdp.send('Runtime.evaluate', {
            expression: `(${collect})(${JSON.stringify(STYLES)}, ${pruned}, ${hit})`,
            returnByValue: true,
          });
          if (answer.exceptionDetails) throw new Error(`the collector threw: ${answer.exceptionDetails.text}`);
        };
        const snapshot = (computedStyles, includePaintOrder) =>
          cdp.send('DOMSnapshot.captureSnapshot', { computedStyles, includePaintOrder });
        const ways = {
          ariaSnapshot: () => body.ariaSnapshot(),
          snapshot: () => snapshot(STYLES, true),
          ...(options >= 0
            ? {
                'no-paint': () => snapshot(STYLES, false),
                'no-styles': () => snapshot([], true),
                'dom-only': () => snapshot([], false),
              }
            : {
                walk: () => evaluate(false),
                pruned: () => evaluate(true),
                hit: () => evaluate(true, true),
              }),
        };
        // One of each first: the first calls warm the page's caches.
        for (const call of Object.values(ways)) await call();
        const times = Object.fromEntries(Object.keys(ways).map((way) => [way, []]));
        for (let run = 0; run < runs; run++) {
          for (const [way, call] of Object.entries(ways)) times[way].push(await timed(call));
        }
        const row = { page: name };
        for (const [way, values] of Object.entries(times)) row[way] = ms(median(values));
        process.stdout.write(JSON.stringify(row) + '\n');
      } catch (error) {
        process.stdout.write(JSON.stringify({ page: name, error: String(error.message ?? error) }) + '\n');
      } finally {
        await page.close().catch(() => {});
      }
    }
  } finally {
    await browser.close();
  }
}

main().catch((error) => {
  console.error(`capture-primitives: ${error.message ?? error}`);
  process.exit(1);
});
