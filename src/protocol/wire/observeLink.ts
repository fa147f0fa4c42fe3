/**
 * The page ↔ bridge worker link of the embedded bridge (SPEC §1, issue 15):
 * the page owns the relay socket and the session, the worker keeps the
 * subscriptions' ring buffers, the journal and the snapshot encoder, and the
 * page's relay timers. It is the host-call link (`hostLink.ts`: the worker
 * starts bindings and captures on the page, the page posts binding events)
 * with these messages added in each direction:
 *
 * - page → worker: subscribe and snapshot requests (`observe`) and their
 *   cancellation, the session's id and open state, attachment notices, the
 *   relay client's timers (`timer`, `clearTimer`), and `closeObserver`;
 * - worker → page: a request's answer (`observed`) and progress, and a timer
 *   that fell due (`tick`).
 *
 * Timers live in the worker because a hidden tab's own timers are throttled
 * (to once a minute after five minutes hidden) while the relay's heartbeat must
 * ping every 20 s; a message event from the worker is not throttled.
 *
 * Every message is parsed on arrival, cheaply: a request was checked against
 * `ServerFrameSchema` at the page's WebSocket, and its answer is checked in the
 * response frame it goes into, so neither is walked again here.
 */
import * as z from 'zod/mini';
import { HOST_LINK_ANSWERS, HOST_LINK_CALLS } from './hostLink.js';
import type { RequestFrame, ResponseFrameSchema } from './relay.js';
import { IdSchema } from '../target.js';
import { isRecord } from '../record.js';

const LinkIdSchema = z.string().check(z.minLength(1), z.maxLength(64));
const TimerIdSchema = z.int().check(z.positive());

/** Kinds of request the worker serves. */
const OBSERVED_KINDS: ReadonlySet<unknown> = new Set(['subscribe', 'snapshot']);

/** A subscribe or snapshot request, as the page's WebSocket parsed it. */
const ObservedRequestSchema = z.custom<RequestFrame>(
  (value) =>
    isRecord(value) &&
    value['t'] === 'request' &&
    typeof value['id'] === 'string' &&
    isRecord(value['op']) &&
    OBSERVED_KINDS.has(value['op']['kind']),
  { message: 'only subscribe and snapshot requests are served by the worker' },
);

/** An answer: `ok` and its data or error; the rest is checked in the response frame it goes into. */
const ObservedOutcomeSchema = z.custom<z.infer<typeof ResponseFrameSchema>['outcome']>(
  (value) => isRecord(value) && typeof value['ok'] === 'boolean',
);

/** Page → worker, besides the host-call link's answers and binding events. */
export const PAGE_OBSERVE_MESSAGES = [
  z.strictObject({ t: z.literal('observe'), id: LinkIdSchema, request: ObservedRequestSchema }),
  z.strictObject({ t: z.literal('observeCancel'), id: LinkIdSchema }),
  /** The session's kept id (the first one names the id whose journal is read) and whether it is open now. */
  z.strictObject({ t: z.literal('session'), sessionId: z.nullable(IdSchema), open: z.boolean() }),
  z.strictObject({ t: z.literal('attachmentEnded'), attachmentId: IdSchema }),
  z.strictObject({
    t: z.literal('attachmentsListed'),
    attachmentIds: z.array(IdSchema).check(z.maxLength(1024)),
  }),
  /** Calls back with `tick` after `ms` (the worker's timers are not throttled in a hidden tab). */
  z.strictObject({ t: z.literal('timer'), id: TimerIdSchema, ms: z.number().check(z.nonnegative()) }),
  z.strictObject({ t: z.literal('clearTimer'), id: TimerIdSchema }),
  /** The page's bridge closes: subscriptions stop with `session-closed`, the journal is written. */
  z.strictObject({ t: z.literal('closeObserver') }),
] as const;

/** Worker → page, besides the host-call link's calls. */
export const WORKER_OBSERVE_MESSAGES = [
  /** A request's outcome; null when the worker does not serve its kind. */
  z.strictObject({ t: z.literal('observed'), id: LinkIdSchema, outcome: z.nullable(ObservedOutcomeSchema) }),
  z.strictObject({
    t: z.literal('observeProgress'),
    id: LinkIdSchema,
    progress: z.number().check(z.nonnegative()),
    total: z.optional(z.number().check(z.nonnegative())),
  }),
  z.strictObject({ t: z.literal('tick'), id: TimerIdSchema }),
] as const;

/** Page → worker: the host-call link's answers and events, and the messages above. */
export const PageToWorkerSchema = z.discriminatedUnion('t', [...HOST_LINK_ANSWERS, ...PAGE_OBSERVE_MESSAGES]);
/** Page → worker. */
export type PageToWorker = z.infer<typeof PageToWorkerSchema>;
/** Page → worker, the observe link's own messages. */
export type PageObserveMessage = Extract<
  PageToWorker,
  {
    t:
      | 'observe'
      | 'observeCancel'
      | 'session'
      | 'attachmentEnded'
      | 'attachmentsListed'
      | 'timer'
      | 'clearTimer'
      | 'closeObserver';
  }
>;

/** Worker → page: the host-call link's calls, and the messages above. */
export const WorkerToPageSchema = z.discriminatedUnion('t', [...HOST_LINK_CALLS, ...WORKER_OBSERVE_MESSAGES]);
/** Worker → page. */
export type WorkerToPage = z.infer<typeof WorkerToPageSchema>;
/** Worker → page, the observe link's own messages. */
export type WorkerObserveMessage = Extract<WorkerToPage, { t: 'observed' | 'observeProgress' | 'tick' }>;
