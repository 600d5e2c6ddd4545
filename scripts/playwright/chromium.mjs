// The Chromium every Playwright helper here launches: Debian's /usr/bin/chromium (or
// $PAGESNAP_CHROMIUM) through playwright-core, with the flags pagesnap's own sessions use.
// No browser is ever downloaded.

import { chromium } from 'playwright-core';

export const EXECUTABLE = process.env.PAGESNAP_CHROMIUM || '/usr/bin/chromium';

export const ARGS = [
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

/** Launches headless Chromium. */
export function launch() {
  return chromium.launch({ executablePath: EXECUTABLE, headless: true, args: ARGS });
}
