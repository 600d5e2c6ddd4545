// The Chromium every Playwright helper here launches: the browser pagesnap's own launches use, with their
// flags, handed over by pagesnap in $PAGESNAP_BROWSER_COMMAND (`{"executable": …, "flags": […]}`; run by hand:
// PAGESNAP_BROWSER_COMMAND="$(pagesnap doctor --launch)" node …). No browser is ever downloaded.

import { chromium } from 'playwright-core';

const VAR = 'PAGESNAP_BROWSER_COMMAND';
if (!process.env[VAR]) {
  throw new Error(`${VAR} is not set: pagesnap sets it when it starts this helper; by hand, ` +
    `${VAR}="$(pagesnap doctor --launch)" node ${process.argv[1] ?? ''}`);
}
const command = JSON.parse(process.env[VAR]);

export const EXECUTABLE = command.executable;

// Playwright adds --headless itself.
export const ARGS = command.flags.filter((flag) => flag !== '--headless');

/** Launches headless Chromium. */
export function launch() {
  return chromium.launch({ executablePath: EXECUTABLE, headless: true, args: ARGS });
}
