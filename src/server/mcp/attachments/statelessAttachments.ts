/**
 * The live attachments of stateless HTTP clients (SPEC §2, §13;
 * docs/protocolRevisions.md). A request carrying a handle registers its
 * attachment with the hub under the id and namespace the handle derives (a
 * resume, so a handle seen again after its attachment ended gets its
 * namespace back and a faithful retry still finds its recorded outcome); a
 * request without one gets a fresh handle. An attachment with no request in
 * flight for `attachmentIdleMs` ends as a detach: the pages tombstone its
 * subscriptions with `attachment-detached`, and nothing of it is kept here.
 *
 * What must be shared across servers (the key, and whether the person ended
 * an attachment) lives behind the key source and the hub; this table only
 * tracks what this process has in flight, so it can be rebuilt from requests.
 */
import { randomBytes } from 'node:crypto';
import { makeError, type ErrorObject } from '../../../protocol/index.js';
import type { AttachmentHandle, HubPort } from '../../hub/hubPort.js';
import type { Logger } from '../../log.js';
import { mintHandle, verifyHandle, type HandleKey, type StatelessIdentity } from './attachmentHandles.js';
import type { HandleKeySource } from './attachmentKey.js';
import type { Attachment } from './attachment.js';

/** Timers and clock; tests inject fakes. */
export interface IdleClock {
  now(): number;
  setInterval(run: () => void, ms: number): { unref?(): void };
  clearInterval(timer: unknown): void;
}

const SYSTEM_CLOCK: IdleClock = {
  now: () => Date.now(),
  setInterval: (run, ms) => setInterval(run, ms),
  clearInterval: (timer) => clearInterval(timer as NodeJS.Timeout),
};

/** Options of {@link StatelessAttachments}. */
export interface StatelessAttachmentsOptions {
  hub: HubPort;
  keySource: HandleKeySource;
  /** `attachmentIdleMs` of this process's limits. */
  idleMs: number;
  logger: Logger;
  clock?: IdleClock;
}

/** One request's use of a stateless attachment. */
export interface StatelessLease {
  readonly identity: StatelessIdentity;
  /** The attachment as the tool handlers use it (operation ids are random: no counter survives a restart). */
  readonly attachment: Attachment;
  /** The key the subscription ids of this attachment are bound with. */
  readonly key: HandleKey;
  /** Ends this request's use; the idle clock starts when the last one ends. */
  release(): void;
}

interface LiveAttachment {
  readonly handle: AttachmentHandle;
  inFlight: number;
  lastUsed: number;
}

/** How many verified handles are remembered (each skips three HMACs on its next request). */
const VERIFIED_KEPT = 1024;

/** How many principals' reader handles are remembered (a cluster node serves many tenants). */
const READERS_KEPT = 1024;

const KEY_UNAVAILABLE =
  'This server cannot check attachment handles right now (its key store is unavailable); nothing was sent. Retry after a short wait.';

/** The client name of the resource-reading attachment. */
export const READER_NAME = 'resource reads (stateless clients)';

const ENDED_BY_PERSON =
  'The person ended this MCP attachment from the terminal ("Detach all"). Omit `attachment` to start a new one ' +
  'once they agree.';

const FOREIGN_HANDLE =
  'This attachment handle was not issued by this server (or is mistyped): pass meta.attachment exactly as your ' +
  'last TradeScript result gave it, or omit `attachment` to start a new attachment.';

/** The stateless attachments of one HTTP front. */
export class StatelessAttachments {
  private readonly live = new Map<string, LiveAttachment>();
  private readonly attaching = new Map<string, Promise<LiveAttachment | null>>();
  /** Idle detaches still on their way to the hub: a request for one of them waits for it first. */
  private readonly detaching = new Map<string, Promise<void>>();
  private key: Promise<HandleKey> | null = null;
  private readonly clock: IdleClock;
  private timer: unknown = null;
  private readonly offEnded: () => void;
  private closed = false;
  /** The reader attachment's handle per principal ('' on one machine), bounded. */
  private readonly readerHandles = new Map<string, string>();
  /** Handles verified lately (bounded): a client sends the same one with every call. */
  private readonly verified = new Map<string, StatelessIdentity>();

  constructor(private readonly options: StatelessAttachmentsOptions) {
    this.clock = options.clock ?? SYSTEM_CLOCK;
    this.offEnded = options.hub.on('attachmentEnded', (attachmentId) => {
      if (this.live.delete(attachmentId))
        options.logger.info('stateless attachment ended by the person', { attachmentId });
    });
  }

  /** Live stateless attachments of this front. */
  get size(): number {
    return this.live.size;
  }

  /** The handle key (loaded once; a failed load is tried again at the next request). */
  handleKey(): Promise<HandleKey> {
    if (!this.key) {
      const loading = this.options.keySource();
      this.key = loading;
      loading.catch(() => {
        if (this.key === loading) this.key = null;
      });
    }
    return this.key;
  }

  /**
   * Verifies `presented` (or mints a handle when it is undefined) and registers
   * its attachment with the hub for the duration of one request.
   */
  async acquire(
    presented: string | undefined,
    principal: string,
    clientName: string,
  ): Promise<StatelessLease | ErrorObject> {
    if (this.closed) return makeError('internal_error', 'This MCP endpoint is shutting down; retry in a moment.');
    const key = await this.handleKey().catch(() => null);
    if (!key) return makeError('transport_error', KEY_UNAVAILABLE);
    const identity = presented === undefined ? mintHandle(key, principal) : this.verify(key, principal, presented);
    if (!identity) return makeError('invalid_input', FOREIGN_HANDLE, { validation_errors: [foreignIssue()] });
    const entry = await this.register(identity, clientName);
    if (!entry) return makeError('control_unavailable', ENDED_BY_PERSON);
    entry.inFlight += 1;
    entry.lastUsed = this.clock.now();
    this.startSweeping();
    let released = false;
    return {
      identity,
      key,
      attachment: leaseAttachment(identity),
      release: () => {
        if (released) return;
        released = true;
        entry.inFlight -= 1;
        entry.lastUsed = this.clock.now();
      },
    };
  }

  /**
   * The one attachment this front reads resources through for stateless
   * clients (a resource read has no arguments to carry a handle, and reading
   * needs pairing only, no operation namespace).
   */
  async acquireReader(principal: string): Promise<StatelessLease | ErrorObject> {
    const key = await this.handleKey().catch(() => null);
    if (!key) return makeError('transport_error', KEY_UNAVAILABLE);
    const handle = this.readerHandles.get(principal) ?? this.newReader(key, principal);
    const lease = await this.acquire(handle, principal, READER_NAME);
    if (!('code' in lease) || lease.code !== 'control_unavailable') return lease;
    // The hub refused the reader (the person ended it): reads go on under a new one.
    return this.acquire(this.newReader(key, principal), principal, READER_NAME);
  }

  private newReader(key: HandleKey, principal: string): string {
    const { handle } = mintHandle(key, principal);
    this.readerHandles.delete(principal);
    this.readerHandles.set(principal, handle);
    if (this.readerHandles.size > READERS_KEPT)
      this.readerHandles.delete(this.readerHandles.keys().next().value as string);
    return handle;
  }

  /** Ends every attachment idle for `attachmentIdleMs` with nothing in flight; returns how many ended. */
  sweep(): number {
    const cutoff = this.clock.now() - this.options.idleMs;
    let ended = 0;
    for (const [id, entry] of [...this.live]) {
      if (entry.inFlight > 0 || entry.lastUsed > cutoff) continue;
      this.live.delete(id);
      ended += 1;
      this.options.logger.info('stateless attachment idle: detached', { attachmentId: id });
      const gone = this.options.hub
        .detach(id)
        .catch(() => undefined)
        .finally(() => this.detaching.delete(id));
      this.detaching.set(id, gone);
    }
    if (this.live.size === 0) this.stopSweeping();
    return ended;
  }

  /** Detaches every live attachment and stops the idle timer. */
  async close(): Promise<void> {
    this.closed = true;
    this.stopSweeping();
    this.offEnded();
    const ids = [...this.live.keys()];
    this.live.clear();
    await Promise.all(ids.map((id) => this.options.hub.detach(id).catch(() => undefined)));
  }

  private verify(key: HandleKey, principal: string, presented: string): StatelessIdentity | null {
    const cacheKey = `${principal}\0${presented}`;
    const known = this.verified.get(cacheKey);
    if (known) return known;
    const identity = verifyHandle(key, principal, presented);
    if (!identity) return null;
    if (this.verified.size >= VERIFIED_KEPT) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(cacheKey, identity);
    return identity;
  }

  private register(identity: StatelessIdentity, clientName: string): Promise<LiveAttachment | null> {
    const { attachmentId, namespace } = identity;
    const known = this.live.get(attachmentId);
    if (known) return Promise.resolve(known);
    let pending = this.attaching.get(attachmentId);
    if (!pending) {
      const info = { clientName, transport: 'http' as const };
      // An idle detach still under way would make the hub refuse the resume as "live".
      pending = (this.detaching.get(attachmentId) ?? Promise.resolve())
        .then(() => this.options.hub.resume({ attachmentId, namespace }, info))
        .then((handle) => {
          if (!handle) return null;
          const entry: LiveAttachment = { handle, inFlight: 0, lastUsed: this.clock.now() };
          this.live.set(attachmentId, entry);
          this.options.logger.info('stateless attachment attached', { attachmentId });
          return entry;
        })
        .finally(() => this.attaching.delete(attachmentId));
      this.attaching.set(attachmentId, pending);
    }
    return pending;
  }

  private startSweeping(): void {
    if (this.timer !== null) return;
    const every = Math.max(1_000, Math.min(60_000, Math.floor(this.options.idleMs / 4)));
    const timer = this.clock.setInterval(() => this.sweep(), every);
    timer.unref?.();
    this.timer = timer;
  }

  private stopSweeping(): void {
    if (this.timer === null) return;
    this.clock.clearInterval(this.timer);
    this.timer = null;
  }
}

function foreignIssue() {
  return { path: ['attachment'], code: 'invalid_value', message: 'Not an attachment handle of this server.' };
}

/** The attachment a tool handler uses for one stateless request. */
function leaseAttachment(identity: StatelessIdentity): Attachment {
  const handle: AttachmentHandle = { attachmentId: identity.attachmentId, namespace: identity.namespace };
  return {
    id: identity.attachmentId,
    ready: () => Promise.resolve(handle),
    end: () => Promise.resolve(),
    nextOperationId: randomOperationId,
  };
}

const ID_BYTES = 12;
/** Random bytes drawn 256 ids at a time: a call into the CSPRNG per call cost more than the id itself. */
let idPool = Buffer.alloc(0);
let idOffset = 0;

/** A 96-bit random operation id (random: no counter survives a restart, and stateless ids have no connection to count on). */
function randomOperationId(): string {
  if (idOffset + ID_BYTES > idPool.length) {
    idPool = randomBytes(ID_BYTES * 256);
    idOffset = 0;
  }
  const id = idPool.toString('base64url', idOffset, idOffset + ID_BYTES);
  idOffset += ID_BYTES;
  return `gen-${id}`;
}
