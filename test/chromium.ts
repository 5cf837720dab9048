import { type Browser, chromium } from 'playwright-core';

/** Debian's Chromium, which the test setup installs when it is missing. */
export const CHROMIUM = '/usr/bin/chromium';

/** Without the background-networking flags Chromium keeps calling Google's hosts, which this network refuses. */
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
}
