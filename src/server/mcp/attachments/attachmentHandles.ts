/**
 * Attachment handles of stateless HTTP clients (SPEC §2, §13;
 * docs/protocolRevisions.md). A 2026-07-28 client over HTTP has no connection
 * and no `Mcp-Session-Id`, so its attachment is named by a handle the server
 * mints and the client passes back as the `attachment` tool argument (the
 * explicit state handle of SEP-2567). Everything here is a pure function of
 * the handle and a key, so any server sharing the key checks a handle, and
 * finds its attachment id, operation namespace and subscriptions, from the
 * request alone: no sticky routing, no lookup.
 *
 * - handle: `ta1.<nonce>.<mac>`; 128 random bits and an HMAC-SHA256 tag
 *   (128 bits) over the nonce and the principal, so a forged, altered or
 *   foreign handle is refused before anything is looked up.
 * - attachment id and namespace: HMACs of the nonce, so the id the sessions
 *   list shows cannot be turned back into the handle.
 * - subscription id: `<page id>.<session id>.<mac>`, the tag binding both to
 *   the attachment, so it routes to its session and answers only its owner.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AttachmentHandle } from '../../hub/hubPort.js';

/** The secret every server that must accept the same handles shares. */
export interface HandleKey {
  readonly secret: Buffer;
}

/** A verified handle: what the hub knows the attachment by. */
export interface StatelessIdentity extends AttachmentHandle {
  /** The handle string itself (goes back to the client in `meta.attachment`, never into logs). */
  readonly handle: string;
}

const VERSION = 'ta1';
const NONCE_BYTES = 16;
const TAG_BYTES = 16;
const HANDLE_PATTERN = /^ta1\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{22})$/;
const SUBSCRIPTION_PATTERN = /^([A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{1,128})\.([A-Za-z0-9_-]{16})$/;

function tag(key: HandleKey, purpose: string, ...parts: string[]): Buffer {
  const mac = createHmac('sha256', key.secret);
  mac.update(`tradescript/${purpose}/v1`);
  for (const part of parts) mac.update(`\0${part}`);
  return mac.digest();
}

function identityOf(key: HandleKey, nonce: string, handle: string): StatelessIdentity {
  return {
    handle,
    attachmentId: `h_${tag(key, 'attachment-id', nonce).subarray(0, 12).toString('base64url')}`,
    namespace: `hn_${tag(key, 'namespace', nonce).subarray(0, 16).toString('base64url')}`,
  };
}

/** Mints a fresh handle for `principal` (empty on a single machine; the authenticated principal in a cluster). */
export function mintHandle(key: HandleKey, principal: string): StatelessIdentity {
  const nonce = randomBytes(NONCE_BYTES).toString('base64url');
  const mac = tag(key, 'handle', principal, nonce).subarray(0, TAG_BYTES).toString('base64url');
  return identityOf(key, nonce, `${VERSION}.${nonce}.${mac}`);
}

/** The identity a handle names, or null when it is malformed or was not minted with this key for this principal. */
export function verifyHandle(key: HandleKey, principal: string, handle: string): StatelessIdentity | null {
  const match = HANDLE_PATTERN.exec(handle);
  if (!match) return null;
  const [, nonce = '', presented = ''] = match;
  const expected = tag(key, 'handle', principal, nonce).subarray(0, TAG_BYTES);
  const given = Buffer.from(presented, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return identityOf(key, nonce, handle);
}

function subscriptionTag(key: HandleKey, attachmentId: string, sessionId: string, pageId: string): string {
  return tag(key, 'subscription', attachmentId, sessionId, pageId).subarray(0, 12).toString('base64url');
}

/** The subscription id a stateless client sees for the page's `pageId` in `sessionId`. */
export function wrapSubscriptionId(key: HandleKey, attachmentId: string, sessionId: string, pageId: string): string {
  return `${pageId}.${sessionId}.${subscriptionTag(key, attachmentId, sessionId, pageId)}`;
}

/** The session and page id behind a wrapped id, or null when it is not this attachment's. */
export function unwrapSubscriptionId(
  key: HandleKey,
  attachmentId: string,
  subscriptionId: string,
): { sessionId: string; pageId: string } | null {
  const match = SUBSCRIPTION_PATTERN.exec(subscriptionId);
  if (!match) return null;
  const [, pageId = '', sessionId = '', presented = ''] = match;
  const expected = Buffer.from(subscriptionTag(key, attachmentId, sessionId, pageId), 'base64url');
  const given = Buffer.from(presented, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return { sessionId, pageId };
}
