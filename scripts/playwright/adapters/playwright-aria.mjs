// `ext:playwright-aria`: Playwright's default-mode `page.locator('body').ariaSnapshot()` as an external
// strategy. The snapshot has no refs; the answer asks pagesnap to give them (`"assign_refs": "aria"`):
// pagesnap matches each `- role "name"` line to the nodes its own analysis of the same page would give a
// ref, and counts the lines it cannot match to one node.

import { serve, ms, TIMEOUT_MS } from './external.mjs';

await serve({
  about: "page.locator('body').ariaSnapshot() (default mode)",
  async observe(page) {
    const started = performance.now();
    const text = await page.locator('body').ariaSnapshot({ timeout: TIMEOUT_MS });
    return { text, assign_refs: 'aria', observe_ms: ms(performance.now() - started) };
  },
});
