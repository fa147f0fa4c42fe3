/**
 * Test support: an in-memory implementation of the `HubPort` seam. It answers
 * every operation with a well-formed outcome (or a scripted one), records each
 * request, and emits hub events on demand. Not a mock: a real, tiny hub.
 */
import {
  sessionContextUri,
  type CallReceipt,
  type CatalogDocument,
  type CatalogResource,
  type ContextData,
  type Operation,
  type RelayCall,
  type SessionSummary,
  type Target,
} from '../../protocol/index.js';
import type {
  AttachmentHandle,
  AttachmentInfo,
  HubEvents,
  HubOutcome,
  HubPort,
  HubRequestOptions,
} from '../hub/hubPort.js';

/** One request the hub received. */
export interface RecordedRequest {
  attachmentId: string;
  sessionId: string;
  op: Operation;
  options: HubRequestOptions;
}

/** Answers one request; may report progress through `request.options.onProgress`. */
export type Responder = (request: RecordedRequest) => HubOutcome | Promise<HubOutcome>;

/** A call receipt for a relayed call, as a page would answer it. */
export function receiptFor(call: RelayCall, overrides: Partial<CallReceipt> = {}): CallReceipt {
  return {
    operationId: call.operationId,
    origin: 'mcp',
    controlId: call.controlId,
    target: call.target,
    mutation: true,
    revisionsBefore: { viewport: 1 },
    revisionsAfter: { viewport: 2 },
    durationMs: 3,
    result: { ok: true },
    ...overrides,
  };
}

/** A minimal session-target context. */
export function contextFor(sessionId: string, target: Target): ContextData {
  return {
    sessionId,
    target,
    label: 'Paper terminal',
    state: {},
    capabilities: { controllers: ['chart'], renderable: false, channels: [] },
    availableTargets: [
      { target: { scope: 'session' }, label: 'Session', controllers: [], renderable: false },
      { target: { scope: 'chart', chartId: 'main' }, label: 'Main chart', controllers: ['chart'], renderable: true },
    ],
    controllerRevisions: { chart: { viewport: 1 } },
    availableSubscriptions: [],
    environment: 'paper',
    access: { grant: 'write', adapterMaximum: 'write', effective: 'write' },
  };
}

/** A session summary as the hub lists it. */
export function sessionSummary(sessionId: string, title = 'Paper terminal'): SessionSummary {
  return {
    sessionId,
    title,
    origin: 'http://127.0.0.1:7392',
    hostKind: 'page',
    environment: 'paper',
    grant: 'write',
    connected: true,
    openedAt: '2026-01-01T00:00:00.000Z',
    contextUri: sessionContextUri(sessionId),
    attachments: [],
  };
}

/** The answer a well-behaved page gives to each operation. */
export function defaultAnswer(request: RecordedRequest): HubOutcome {
  const { op, sessionId } = request;
  const ok = (data: unknown): HubOutcome => ({ ok: true, data, environment: 'paper' });
  switch (op.kind) {
    case 'context':
      return ok(contextFor(sessionId, op.target));
    case 'listControls':
      return ok({
        target: op.input.target,
        controls: [],
        nextCursor: null,
        total: 0,
        unavailableControls: [],
        unavailableTotal: 0,
        unavailableTruncated: false,
        unclassifiedControls: [],
        unclassifiedTotal: 0,
        unclassifiedTruncated: false,
      });
    case 'call':
      return ok(receiptFor(op.call));
    case 'batch':
      return ok({
        atomic: false,
        outcomes: op.calls.map((call, index) => ({ index, status: 'fulfilled', receipt: receiptFor(call) })),
      });
    case 'subscribe':
      return ok(subscribeAnswer(op.input));
    case 'snapshot':
      return {
        ok: true,
        environment: 'paper',
        data: {
          mimeType: `image/${op.format}`,
          width: 2,
          height: 1,
          byteLength: 4,
          scaled: false,
          target: op.target,
          capturedAt: '2026-01-01T00:00:00.000Z',
        },
        image: { mimeType: `image/${op.format}`, base64: 'iVBORw==' },
      };
  }
}

function subscribeAnswer(input: Extract<Operation, { kind: 'subscribe' }>['input']): unknown {
  const summary = {
    subscriptionId: 'sub-1',
    status: 'active',
    target: { scope: 'session' },
    bindings: [{ bindingId: 'b1', channelId: 'data.quotes' }],
    lastSequence: 0,
    droppedCount: 0,
    startedAt: '2026-01-01T00:00:00.000Z',
  };
  switch (input.action) {
    case 'start':
      return {
        subscriptionId: 'sub-1',
        status: 'active',
        target: input.target,
        bindings: [],
        startedAt: summary.startedAt,
      };
    case 'poll':
      return {
        subscriptionId: input.subscriptionId,
        status: 'active',
        events: [],
        lastSequence: 0,
        droppedBeforeSequence: null,
        droppedCount: 0,
      };
    case 'stop':
      return { ...summary, status: 'stopped', stoppedAt: summary.startedAt, reason: 'stopped' };
    case 'list':
      return { subscriptions: [summary] };
  }
}

type Listeners = { [E in keyof HubEvents]: Set<HubEvents[E]> };

/** An in-memory hub. */
export class InMemoryHub implements HubPort {
  /** What `listSessions` returns. */
  sessions: SessionSummary[] = [sessionSummary('s-1')];
  /** What `catalog` returns. */
  catalogDocument: CatalogDocument = { controls: [], channels: [] };
  /** How requests are answered; replace it to script a scenario. */
  responder: Responder = defaultAnswer;
  readonly requests: RecordedRequest[] = [];
  readonly attached: Array<AttachmentHandle & AttachmentInfo> = [];
  readonly detached: string[] = [];
  private next = 0;
  private readonly listeners: Listeners = {
    sessionsChanged: new Set(),
    sessionUpdated: new Set(),
    attachmentEnded: new Set(),
    attachmentDetached: new Set(),
  };

  attach(info: AttachmentInfo): Promise<AttachmentHandle> {
    this.next += 1;
    const handle = { attachmentId: `att-${this.next}-0000aaaa`, namespace: `ns-${this.next}` };
    this.attached.push({ ...handle, ...info });
    this.live.add(handle.attachmentId);
    return Promise.resolve(handle);
  }

  /** Resumes a kept attachment unless it is attached now or the person ended it (what the real hub refuses). */
  resume(kept: AttachmentHandle, info: AttachmentInfo): Promise<AttachmentHandle | null> {
    if (this.live.has(kept.attachmentId) || this.endedByPerson.has(kept.attachmentId)) return Promise.resolve(null);
    this.live.add(kept.attachmentId);
    this.attached.push({ ...kept, ...info });
    return Promise.resolve({ ...kept });
  }

  /** Ids attached now. */
  readonly live = new Set<string>();
  /** Ids the person ended (the real hub never resumes them). */
  readonly endedByPerson = new Set<string>();

  detach(attachmentId: string): Promise<void> {
    this.detached.push(attachmentId);
    this.live.delete(attachmentId);
    return Promise.resolve();
  }

  listSessions(): Promise<SessionSummary[]> {
    return Promise.resolve(this.sessions);
  }

  catalog(): Promise<CatalogResource> {
    const { controls, channels } = this.catalogDocument;
    const total = { controls: controls.length, channels: channels.length };
    return Promise.resolve({ controls, channels, truncated: false, total });
  }

  async request(attachmentId: string, sessionId: string, op: Operation, options: HubRequestOptions) {
    const recorded = { attachmentId, sessionId, op, options };
    this.requests.push(recorded);
    return this.responder(recorded);
  }

  on<E extends keyof HubEvents>(event: E, listener: HubEvents[E]): () => void {
    const set = this.listeners[event] as Set<HubEvents[E]>;
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Emits a hub event to every listener. */
  emit<E extends keyof HubEvents>(event: E, ...args: Parameters<HubEvents[E]>): void {
    for (const listener of this.listeners[event] as Set<(...a: Parameters<HubEvents[E]>) => void>) {
      listener(...args);
    }
  }

  /** How many listeners are registered (to prove a closed connection unsubscribed). */
  listenerCount(): number {
    return Object.values(this.listeners).reduce((n, set) => n + set.size, 0);
  }
}
