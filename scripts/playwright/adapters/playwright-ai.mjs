// `ext:playwright-ai`: Playwright's `page.ariaSnapshot({mode: 'ai'})` (what Playwright MCP shows a model)
// as an external strategy, each `[ref=eN]` resolved to its CDP backendNodeId.
//
// Why the adapter resolves refs itself: `aria-ref=eN` selectors resolve only against the last snapshot
// taken in the same Playwright connection, so pagesnap cannot resolve them. The cheapest public path:
// one `page.$('aria-ref=eN')` per ref (issued together), the handles handed to the page's main world in
// one `page.evaluate` (same-origin iframes: each element stores itself in the top window; a frame from
// another site: in its own window, read through a CDP session of that frame, the ref naming the frame), then one
// `Runtime.evaluate` + `Runtime.getProperties` and a `DOM.describeNode` per element (issued together)
// on a CDP session of the tab. `observe_ms` is the snapshot alone; resolving is pagesnap's bookkeeping,
// which Playwright MCP does lazily, per action.

import { serve, ms, TIMEOUT_MS } from './external.mjs';

const KEY = 'pagesnap.externalRefs';

async function resolve(page, cdp, refs) {
  const handles = await Promise.all(refs.map((ref) => page.$(`aria-ref=${ref}`).catch(() => null)));
  const present = [];
  handles.forEach((handle, k) => handle && present.push([handle, k]));
  // Elements of frames from another site (out of process) cannot reach the top window.
  const elsewhere = [];
  try {
    await page.evaluate(
      ([pairs, key]) => {
        const found = [];
        for (const [element, k] of pairs) found[k] = element;
        window[Symbol.for(key)] = found;
      },
      [present, KEY],
    );
  } catch {
    // Handles from iframes cannot be passed to the main frame: each stores itself in the top window.
    await Promise.all(
      present.map(([handle, k]) =>
        handle
          .evaluate(
            (element, [k, key]) => {
              const top = window.top;
              (top[Symbol.for(key)] ||= [])[k] = element;
            },
            [k, KEY],
          )
          .catch(() => elsewhere.push([handle, k])),
      ),
    );
  }
  const out = await collect(cdp, refs, null);
  // Each out-of-process frame: its elements store themselves in its own
  // window, read through a CDP session of that frame; their backend ids are
  // that process's, so each ref also names its frame.
  const frames = new Map();
  for (const [handle, k] of elsewhere) {
    const frame = await handle.ownerFrame().catch(() => null);
    if (!frame) continue;
    if (!frames.has(frame)) frames.set(frame, []);
    frames.get(frame).push([handle, k]);
  }
  for (const [frame, items] of frames) {
    let session;
    try {
      session = await page.context().newCDPSession(frame);
    } catch {
      continue; // not a frame of its own process
    }
    await Promise.all(
      items.map(([handle, k]) =>
        handle
          .evaluate((element, [k, key]) => { (window[Symbol.for(key)] ||= [])[k] = element; }, [k, KEY])
          .catch(() => {}),
      ),
    );
    const { frameTree } = await session.send('Page.getFrameTree');
    Object.assign(out, await collect(session, refs, frameTree.frame.id));
    await session.detach().catch(() => {});
  }
  await Promise.all(handles.map((handle) => handle && handle.dispose().catch(() => {})));
  return out;
}

// The backend node ids of the elements stored in the session's window, by ref.
async function collect(cdp, refs, frame) {
  const { result } = await cdp.send('Runtime.evaluate', {
    expression: `(() => { const s = Symbol.for(${JSON.stringify(KEY)}); const a = window[s] || []; delete window[s]; return a; })()`,
  });
  const out = {};
  if (!result.objectId) return out;
  const { result: props } = await cdp.send('Runtime.getProperties', {
    objectId: result.objectId,
    ownProperties: true,
  });
  await Promise.all(
    props
      .filter((p) => /^\d+$/.test(p.name) && p.value && p.value.objectId)
      .map(async (p) => {
        const { node } = await cdp.send('DOM.describeNode', { objectId: p.value.objectId });
        out[refs[Number(p.name)]] = frame
          ? { backendNodeId: node.backendNodeId, frame }
          : { backendNodeId: node.backendNodeId };
      }),
  );
  await cdp.send('Runtime.releaseObject', { objectId: result.objectId }).catch(() => {});
  return out;
}

await serve({
  about: "page.ariaSnapshot({mode: 'ai'}), refs resolved through aria-ref=",
  async observe(page, cdp) {
    const started = performance.now();
    const text = await page.ariaSnapshot({ mode: 'ai', timeout: TIMEOUT_MS });
    const observeMs = ms(performance.now() - started);
    const refs = [...new Set([...text.matchAll(/\[ref=([^\]\s]+)\]/g)].map((m) => m[1]))];
    return { text, refs: await resolve(page, cdp, refs), observe_ms: observeMs };
  },
});
