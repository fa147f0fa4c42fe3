/**
 * Pairing a demo tab by its link (SPEC §9: `pairUrl` carries the code in the
 * fragment; opening it pairs the tab with no typing).
 */
import type { Page } from 'playwright-core';
import type { BridgeStatus } from '../../src/bridge/page/bridgeTypes.js';
import { harnessTimeouts } from './timeouts.js';

/** The hook the demo terminal exposes for tests. */
interface DemoWindow {
  __tradescriptDemo?: { bridgeStatus(): BridgeStatus };
}

/**
 * Opens `pairUrl` in `page` and waits until the demo reports
 * `window.__tradescriptDemo.bridgeStatus().state === 'paired'`; returns the
 * session id. On timeout the error names the last state and message seen.
 */
export async function pairPage(page: Page, pairUrl: string, timeoutMs = harnessTimeouts.pairMs): Promise<string> {
  // A fragment-only change would not reload the page, and the demo reads the code on load.
  if (withoutFragment(page.url()) === withoutFragment(pairUrl)) await page.goto('about:blank');
  await page.goto(pairUrl, { timeout: timeoutMs });
  try {
    await page.waitForFunction(
      () => (window as unknown as DemoWindow).__tradescriptDemo?.bridgeStatus().state === 'paired',
      undefined,
      {
        timeout: timeoutMs,
        polling: 50,
      },
    );
  } catch (error) {
    const status = await page
      .evaluate(() => (window as unknown as DemoWindow).__tradescriptDemo?.bridgeStatus() ?? null)
      .catch(() => null);
    const seen = status
      ? `state ${status.state}, message ${JSON.stringify(status.message)}`
      : 'no window.__tradescriptDemo hook';
    throw new Error(
      `pairPage: the tab did not pair within ${timeoutMs} ms (${seen}): ${(error as Error).message.split('\n')[0]}`,
    );
  }
  const sessionId = await page.evaluate(
    () => (window as unknown as DemoWindow).__tradescriptDemo?.bridgeStatus().sessionId ?? null,
  );
  if (!sessionId) throw new Error('pairPage: paired, but bridgeStatus().sessionId is null');
  return sessionId;
}

function withoutFragment(url: string): string {
  const hash = url.indexOf('#');
  return hash === -1 ? url : url.slice(0, hash);
}
