/**
 * The extension's snapshot fast path as the bench sees it (SPEC §8 "In the
 * extension"): `chrome.tabs.captureVisibleTab` cropped to the target, which
 * the extension's service worker tries first and silently leaves to the
 * page's own capture when it cannot serve (no activeTab, the tab not active,
 * the target not whole on screen, Chromium's capture quota). Only the page
 * can tell which one ran: the demo counts its SDK's captures
 * (`countSdkCaptures`, e2e/fixtures/extension/demoTab.ts).
 */

/**
 * Chromium allows `captureVisibleTab` this often per extension
 * (`chrome.tabs.MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND`); a call over it
 * fails, and the extension then falls back to the page's capture.
 */
export const CAPTURE_VISIBLE_TAB_PER_SECOND = 2;

/**
 * Why a row's captures cannot count as the extension's fast path, or null
 * when they can: every one of them must have run without the page's SDK
 * capture.
 * @param {{ captures: number, sdkCaptures: number, diagnosis?: string | null }} seen
 *   `captures`: snapshots the row asked for (first, trials, the traced one);
 *   `sdkCaptures`: how many of them the page's SDK captured itself;
 *   `diagnosis`: what the bench found when the fast path did not serve
 * @returns {string | null}
 */
export function whyNotFastPath({ captures, sdkCaptures, diagnosis = null }) {
  if (!(captures > 0)) return 'no snapshot ran';
  if (!Number.isInteger(sdkCaptures) || sdkCaptures < 0)
    return `the page's count of its own captures is unreadable (${sdkCaptures})`;
  if (sdkCaptures === 0) return null;
  const share = sdkCaptures >= captures ? `all ${captures}` : `${sdkCaptures} of ${captures}`;
  return `the page's own capture served ${share} snapshots, not the visible tab${diagnosis ? ` (${diagnosis})` : ''}`;
}

/**
 * A gate that keeps starts at least `1000 / perSecond` ms apart (plus
 * `marginMs`), measured from the previous start; `wait()` resolves when the
 * next start may go. `now` and `sleep` are injectable for tests.
 * @param {number} perSecond
 * @param {{ marginMs?: number, now?: () => number, sleep?: (ms: number) => Promise<void> }} [opts]
 */
export function rateGate(perSecond, opts = {}) {
  const gapMs = 1000 / perSecond + (opts.marginMs ?? 0);
  const now = opts.now ?? (() => performance.now());
  const sleep = opts.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  let last = -Infinity;
  return {
    gapMs,
    async wait() {
      const due = last + gapMs - now();
      if (due > 0) await sleep(due);
      last = now();
    },
  };
}
