/**
 * MCP attachments (SPEC §2): one per MCP client connection, each with an opaque
 * operation namespace. Ended ids are remembered (bounded) so a late request
 * from an ended attachment gets a clear answer.
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
  private readonly ended = new Set<string>();

  /** Registers a new attachment with a fresh id and namespace. */
  add(info: AttachmentInfo, now: Date): AttachmentRecord {
    const attachmentId = randomId('a');
    const record: AttachmentRecord = {
      attachmentId,
      namespace: randomId('ns', 16),
      summary: {
        attachmentId,
        clientName: info.clientName.slice(0, 128),
        transport: info.transport,
        attachedAt: now.toISOString(),
      },
    };
    this.live.set(attachmentId, record);
    return record;
  }

  /** Removes an attachment; false when it was not attached. */
  remove(attachmentId: string): boolean {
    if (!this.live.delete(attachmentId)) return false;
    this.ended.add(attachmentId);
    if (this.ended.size > ENDED_KEPT) this.ended.delete(this.ended.values().next().value as string);
    return true;
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

  /** Summaries, oldest first. */
  summaries(): AttachmentSummary[] {
    return [...this.live.values()].map((a) => a.summary);
  }
}
