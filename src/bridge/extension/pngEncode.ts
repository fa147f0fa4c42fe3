/**
 * Captures cross `chrome.runtime` messaging, which carries JSON only: the
 * page turns the SDK's bitmap into a lossless PNG in base64, and the service
 * worker turns it back into a bitmap to scale and encode as asked.
 */

/** Encodes a bitmap as a base64 PNG (the bitmap is consumed). */
export async function bitmapToPngBase64(bitmap: ImageBitmap): Promise<string> {
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const context = canvas.getContext('bitmaprenderer');
  if (!context) throw new Error('no bitmaprenderer context');
  context.transferFromImageBitmap(bitmap);
  const blob = await canvas.convertToBlob({ type: 'image/png' });
  return bytesToBase64(new Uint8Array(await blob.arrayBuffer()));
}

/** Decodes a base64 PNG into a bitmap. */
export async function pngBase64ToBitmap(base64: string): Promise<ImageBitmap> {
  return createImageBitmap(new Blob([base64ToBytes(base64)], { type: 'image/png' }));
}

const CHUNK = 0x8000;

/** Base64 of bytes, in chunks so no call gets millions of arguments. */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += CHUNK) binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(binary);
}

/** Bytes of a base64 string; throws on one that is not base64. */
export function base64ToBytes(base64: string): Uint8Array<ArrayBuffer> {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
