/**
 * Two PNGs compared pixel by pixel, decoded in a page (Chromium's own
 * decoder; the bench has no image library of its own).
 */

/**
 * Differing pixels and the largest channel difference between two PNGs (base64, decoded in `page`):
 * `size`, `differ` (pixels with any channel apart), `max` (the largest channel difference), and the
 * `box` holding the differing pixels; only `size` (both sizes) when the sizes differ.
 */
export function comparePngs(page, a, b) {
  return page.evaluate(
    async ([x, y]) => {
      const pixels = async (base64) => {
        const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
        const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
        const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
        const context = canvas.getContext('2d');
        context.drawImage(bitmap, 0, 0);
        return {
          w: bitmap.width,
          h: bitmap.height,
          data: context.getImageData(0, 0, bitmap.width, bitmap.height).data,
        };
      };
      const [pa, pb] = [await pixels(x), await pixels(y)];
      if (pa.w !== pb.w || pa.h !== pb.h) return { size: `${pa.w}×${pa.h} vs ${pb.w}×${pb.h}` };
      let differ = 0;
      let max = 0;
      const box = { left: Infinity, top: Infinity, right: -1, bottom: -1 };
      for (let i = 0; i < pa.data.length; i += 4) {
        let d = 0;
        for (let c = 0; c < 4; c++) d = Math.max(d, Math.abs(pa.data[i + c] - pb.data[i + c]));
        if (d === 0) continue;
        differ++;
        max = Math.max(max, d);
        const [px, py] = [(i / 4) % pa.w, Math.floor(i / 4 / pa.w)];
        Object.assign(box, { left: Math.min(box.left, px), top: Math.min(box.top, py) });
        Object.assign(box, { right: Math.max(box.right, px), bottom: Math.max(box.bottom, py) });
      }
      return { size: `${pa.w}×${pa.h}`, differ, max, ...(differ ? { box } : {}) };
    },
    [a, b],
  );
}
