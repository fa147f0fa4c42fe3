/**
 * The reference a journaled broker request is sent with: the control, the
 * operation id and the request itself, so reconciliation (which gets the
 * same three) finds exactly this request, and two attachments that reuse an
 * operation id for different requests never find each other's.
 */
import { canonicalJson } from '../broker/previews.js';

/** The broker journal key of one control call. */
export function requestRef(controlId: string, operationId: string, request: unknown): string {
  return `${controlId}\u0000${operationId}\u0000${canonicalJson(request)}`;
}
