/**
 * MCP attachments (SPEC §2): one per MCP client connection, each with an opaque
 * operation namespace. Ended ids are remembered (bounded) so a late request
 * from an ended attachment gets a clear answer, and so an attachment the person
 * ended is never resumed by a front that followed the hub to a new process.
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
  private readonly endedByPerson = new Set<string>();

  /**
   * Registers an attachment: a fresh id and namespace, or the kept ones of an
   * attachment resumed after its front followed the hub to a new process.
   */
  add(info: AttachmentInfo, now: Date, kept?: AttachmentHandle): AttachmentRecord {
    const attachmentId = kept?.attachmentId ?? randomId('a');
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
    return record;
  }

  /** True when a front may resume this id: not live here, and not ended by the person. */
  resumable(attachmentId: string): boolean {
    return !this.live.has(attachmentId) && !this.endedByPerson.has(attachmentId);
  }

  /** Removes an attachment; false when it was not attached. */
  remove(attachmentId: string, byPerson = false): boolean {
    if (!this.live.delete(attachmentId)) return false;
    remember(this.ended, attachmentId);
    if (byPerson) remember(this.endedByPerson, attachmentId);
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

function remember(set: Set<string>, id: string): void {
  set.add(id);
  if (set.size > ENDED_KEPT) set.delete(set.values().next().value as string);
}
