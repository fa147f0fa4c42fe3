/**
 * The snapshot fast path (SPEC §8 "In the extension"): when the tab is the
 * active one of a window that is not minimized and the target shows whole,
 * the browser's own `captureVisibleTab`, cropped to the target, replaces the
 * page's DOM capture. It needs `activeTab` for the tab (granted when the
 * person opens the popup or clicks the action on it); without it, or on any
 * failure, the answer is null and the page's capture serves the snapshot.
 */
import { cropRegion, wholeOnScreen, type VisibleCapture } from '../../../src/bridge/extension/sw/index.js';

async function activeIn(tabId: number): Promise<number | null> {
  const tab = await chrome.tabs.get(tabId);
  if (!tab.active) return null;
  const window = await chrome.windows.get(tab.windowId);
  return window.state === 'minimized' ? null : tab.windowId;
}

/** The fast path for one tab. */
export function visibleCaptureFor(tabId: number): VisibleCapture {
  return async (view, options) => {
    if (!wholeOnScreen(view)) return null;
    const windowId = await activeIn(tabId);
    if (windowId === null) return null;
    const dataUrl = await chrome.tabs.captureVisibleTab(windowId, { format: 'png' });
    // Another tab may have become active meanwhile: its pixels must never leave.
    if ((await activeIn(tabId)) !== windowId) return null;
    const full = await createImageBitmap(await (await fetch(dataUrl)).blob());
    try {
      const crop = cropRegion(view, full.width, full.height, options.maxPixels);
      if (!crop) return null;
      const bitmap = await createImageBitmap(full, crop.sx, crop.sy, crop.sw, crop.sh, {
        resizeWidth: crop.outWidth,
        resizeHeight: crop.outHeight,
        resizeQuality: 'high',
      });
      return { ok: true, bitmap, width: crop.sw, height: crop.sh };
    } finally {
      full.close();
    }
  };
}
