/**
 * The {@link HubPort} MCP gets before this process has taken its role
 * (`startServer.ts`): calls wait until the role's hub is known, event
 * listeners are kept and hear that hub's events from then on. It lets MCP
 * start first, so a probe (`stdinWatch.ts`) is answered without a hub, and
 * a hub role load its hub with the first call that needs it (SPEC §12).
 */
import type { CatalogResource, Operation, SessionSummary } from '../../protocol/index.js';
import { HubEmitter } from '../hub/emitter.js';
import type {
  AttachmentHandle,
  AttachmentInfo,
  HubEvents,
  HubOutcome,
  HubPort,
  HubRequestOptions,
} from '../hub/hubPort.js';

/** A hub port whose hub comes later. */
export class DeferredHubPort implements HubPort {
  private readonly events = new HubEmitter();
  private resolveHub: (hub: HubPort) => void = () => undefined;
  private rejectHub: (error: unknown) => void = () => undefined;
  private readonly hub: Promise<HubPort>;
  private markWanted: () => void = () => undefined;
  /** Resolves with the first call that needs the hub (the process loads its hub then, if nothing did before). */
  readonly wanted: Promise<void>;

  constructor() {
    this.wanted = new Promise((resolve) => (this.markWanted = resolve));
    this.hub = new Promise((resolve, reject) => {
      this.resolveHub = resolve;
      this.rejectHub = reject;
    });
    // Nobody may be waiting when the hub fails to load; those who are see it.
    this.hub.catch(() => undefined);
  }

  /** The role's hub: waiting calls go on, listeners hear its events. */
  use(hub: HubPort): void {
    hub.on('sessionsChanged', () => this.events.emit('sessionsChanged'));
    hub.on('sessionUpdated', (sessionId) => this.events.emit('sessionUpdated', sessionId));
    hub.on('attachmentEnded', (attachmentId) => this.events.emit('attachmentEnded', attachmentId));
    this.resolveHub(hub);
  }

  /** The role's hub could not load: waiting and later calls reject with `error`. */
  fail(error: unknown): void {
    this.rejectHub(error);
  }

  async attach(info: AttachmentInfo): Promise<AttachmentHandle> {
    return (await this.reach()).attach(info);
  }

  async resume(kept: AttachmentHandle, info: AttachmentInfo): Promise<AttachmentHandle | null> {
    return (await this.reach()).resume(kept, info);
  }

  async detach(attachmentId: string): Promise<void> {
    return (await this.reach()).detach(attachmentId);
  }

  async listSessions(): Promise<SessionSummary[]> {
    return (await this.reach()).listSessions();
  }

  async catalog(maxBytes: number): Promise<CatalogResource> {
    return (await this.reach()).catalog(maxBytes);
  }

  async request(
    attachmentId: string,
    sessionId: string,
    op: Operation,
    options: HubRequestOptions,
  ): Promise<HubOutcome> {
    return (await this.reach()).request(attachmentId, sessionId, op, options);
  }

  private reach(): Promise<HubPort> {
    this.markWanted();
    return this.hub;
  }

  on<E extends keyof HubEvents>(event: E, listener: HubEvents[E]): () => void {
    return this.events.on(event, listener);
  }
}
