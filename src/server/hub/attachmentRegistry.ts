/**
 * MCP attachments (SPEC §2): one per MCP client connection, each with an opaque
 * operation namespace. Ended ids are remembered (bounded) so a late request
 * from an ended attachment gets a clear answer. A page's "detach" ends an
 * attachment's use of that page's host only: the hosts each attachment was
 * detached from are kept with it, and with its ended id, so an attachment that
 * comes back under its kept id (a stateless client's handle after an idle
 * detach) is still detached from them.
 */
import type { AttachmentSummary } from '../../protocol/index.js';
import type { AttachmentHandle, AttachmentInfo } from './hubPort.js';
import { randomId } from './ids.js';

const ENDED_KEPT = 256;

/** One attachment as the hub keeps it. */
export interface AttachmentRecord extends AttachmentHandle {
  readonly summary: AttachmentSummary;
}

/** The attachments of one hub. */
export class AttachmentRegistry {
  private readonly live = new Map<string, AttachmentRecord>();
  /** Ended ids (bounded), with the hosts the person had detached each from. */
  private readonly ended = new Map<string, readonly string[]>();
  /** Attachment id → the hosts whose person detached it. */
  private readonly detached = new Map<string, Set<string>>();

  /**
   * Registers an attachment: a fresh id and namespace, or the kept ones of an
   * attachment resumed after its front followed the hub to a new process.
   */
  add(info: AttachmentInfo, now: Date, kept?: AttachmentHandle): AttachmentRecord {
    const attachmentId = kept?.attachmentId ?? randomId('a');
    const detachedBefore = this.ended.get(attachmentId) ?? [];
    this.ended.delete(attachmentId);
    const record: AttachmentRecord = {
      attachmentId,
      namespace: kept?.namespace ?? randomId('ns', 16),
      summary: {
        attachmentId,
        clientName: info.clientName.slice(0, 128),
        transport: info.transport,
        attachedAt: now.toISOString(),
      },
    };
    this.live.set(attachmentId, record);
    if (detachedBefore.length > 0) this.detached.set(attachmentId, new Set(detachedBefore));
    return record;
  }

  /** True when a front may resume this id: not live here. */
  resumable(attachmentId: string): boolean {
    return !this.live.has(attachmentId);
  }

  /** Removes an attachment; false when it was not attached. */
  remove(attachmentId: string): boolean {
    if (!this.live.delete(attachmentId)) return false;
    remember(this.ended, attachmentId, [...(this.detached.get(attachmentId) ?? [])]);
    this.detached.delete(attachmentId);
    return true;
  }

  /** The person at a tab of `hostId` ended this attachment's use of that host; false when nothing changed. */
  detachFromHost(attachmentId: string, hostId: string): boolean {
    if (!this.live.has(attachmentId)) return false;
    const hosts = this.detached.get(attachmentId) ?? new Set<string>();
    if (hosts.has(hostId)) return false;
    hosts.add(hostId);
    this.detached.set(attachmentId, hosts);
    return true;
  }

  /** The hosts the person detached this live attachment from. */
  detachedHostsOf(attachmentId: string): string[] {
    return [...(this.detached.get(attachmentId) ?? [])];
  }

  /** True when the person at a tab of `hostId` detached this attachment. */
  isDetachedFrom(attachmentId: string, hostId: string): boolean {
    return this.detached.get(attachmentId)?.has(hostId) ?? false;
  }

  get(attachmentId: string): AttachmentRecord | undefined {
    return this.live.get(attachmentId);
  }

  /** True when the attachment existed and was ended. */
  wasEnded(attachmentId: string): boolean {
    return this.ended.has(attachmentId);
  }

  ids(): string[] {
    return [...this.live.keys()];
  }

  /** Summaries of the attachments that may use `hostId`'s sessions, oldest first. */
  summariesFor(hostId: string): AttachmentSummary[] {
    return [...this.live.values()].filter((a) => !this.isDetachedFrom(a.attachmentId, hostId)).map((a) => a.summary);
  }

  /** Ids of the attachments that may use `hostId`'s sessions. */
  idsFor(hostId: string): string[] {
    return this.ids().filter((id) => !this.isDetachedFrom(id, hostId));
  }
}

function remember(ended: Map<string, readonly string[]>, id: string, detachedHosts: readonly string[]): void {
  ended.set(id, detachedHosts);
  if (ended.size > ENDED_KEPT) ended.delete(ended.keys().next().value as string);
}
