/**
 * Message batches on the page↔worker link (`LINK_BATCHES_HELLO` in
 * src/protocol's hostLink.ts, issue 15). With several calls in flight, the
 * relay hands the worker their requests in one WebSocket message; posted one
 * by one they would reach the page as as many tasks, and the page's answers
 * come back as as many tasks again, so the worker could never send them to
 * the relay together. Here what one end posts in one turn goes as one array
 * (at the turn's end, a microtask: no delay for a lone call, which goes as
 * itself), once the other end said it reads arrays. The extension's links do
 * not use this.
 */
import {
  isLinkBatchesHello,
  LINK_BATCHES_HELLO,
  linkBatchMessages,
  MAX_LINK_BATCH,
} from '../../protocol/wire/hostLink.js';
import { atTurnEnd } from '../../protocol/wire/frameBatch.js';
import type { LinkEndpoint } from './linkEndpoint.js';

class BatchingEndpoint implements LinkEndpoint {
  onmessage: ((data: unknown) => void) | null = null;
  onunsent: ((message: unknown) => void) | null = null;
  /** The other end said it reads arrays. */
  private peerReads = false;
  private queue: unknown[] = [];
  private readonly flushLater = () => this.flush();

  constructor(
    private readonly inner: LinkEndpoint,
    private readonly schedule: (flush: () => void) => void,
  ) {
    inner.onmessage = (data) => this.receive(data);
    inner.post(LINK_BATCHES_HELLO);
  }

  post(message: unknown, transfer?: Transferable[]): void {
    if (!this.peerReads || transfer?.length) {
      // What was queued goes first, so order holds; a failure still throws to the caller.
      this.flush();
      return this.inner.post(message, transfer);
    }
    if (this.queue.push(message) === 1) this.schedule(this.flushLater);
    if (this.queue.length === MAX_LINK_BATCH) this.flush();
  }

  close(): void {
    this.flush();
    this.inner.close();
  }

  private flush(): void {
    const queue = this.queue;
    if (queue.length === 0) return;
    this.queue = [];
    if (queue.length > 1) {
      try {
        return this.inner.post(queue);
      } catch {
        // One message cannot be cloned (a host defect): the others still go, one by one.
      }
    }
    for (const message of queue) {
      try {
        this.inner.post(message);
      } catch {
        this.onunsent?.(message);
      }
    }
  }

  private receive(data: unknown): void {
    if (isLinkBatchesHello(data)) {
      this.peerReads = true;
      return;
    }
    const batch = linkBatchMessages(data);
    if (batch === null) return this.onmessage?.(data);
    for (const message of batch) this.onmessage?.(message);
  }
}

/**
 * Wraps one end of a MessagePort link so that it reads batches, says so, and
 * posts them once the other end said so too (`schedule` ends the turn:
 * {@link atTurnEnd} unless a test passes its own). A message that could not
 * be sent from a batch goes to `onunsent` instead of throwing at its poster.
 */
export function batchingEndpoint(inner: LinkEndpoint, schedule: (flush: () => void) => void = atTurnEnd): LinkEndpoint {
  return new BatchingEndpoint(inner, schedule);
}
