/**
 * The Chrome extension's own wire shapes (SPEC §10): the handshake on `window`
 * between a terminal page and the extension's content script, the link the
 * content script bridges between the page's host SDK and the service worker
 * (a private MessagePort, then a `chrome.runtime` Port), and the popup's
 * messages to the service worker. Every hop parses these; nothing is cast.
 */
import { z } from 'zod';
import { EnvironmentSchema } from './envelope.js';
import { ErrorObjectSchema } from './errors.js';
import { AdapterMaximumSchema, GrantSchema } from './policy.js';
import { CatalogSchema, OperationSchema, RelayLimitsSchema, RequestAttachmentSchema } from './relay.js';
import { AttachmentSummarySchema, SessionInfoSchema } from './resources.js';
import { IdSchema, TargetSchema } from './target.js';

/** Version of the page ↔ extension link; a page and an extension of different versions do not link. */
export const EXTENSION_LINK_VERSION = 1;
/** Tag of every `window` message of the handshake, so unrelated page messages are told apart at once. */
export const EXTENSION_LINK_TAG = 'tradescript.extensionLink';

const LinkIdSchema = z.string().min(1).max(64);
/** A site origin as the extension grants it: `http(s)://host[:port]`, no path. */
export const SiteOriginSchema = z
  .string()
  .max(256)
  .refine(isSiteOrigin, { message: 'not a normalized http(s) origin' });

/** True for an origin exactly as `new URL(…).origin` spells it, http or https. */
export function isSiteOrigin(value: string): boolean {
  if (!/^https?:\/\/[^/?#\s@]+$/.test(value)) return false;
  try {
    return new URL(value).origin === value;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------- window handshake

const handshake = <T extends string>(t: T) =>
  z.object({ tag: z.literal(EXTENSION_LINK_TAG), v: z.literal(EXTENSION_LINK_VERSION), t: z.literal(t) }).strict();

/** Page → content script: "I expose a host; hand me the port". Posted again after each `ready`. */
export const PageHelloSchema = handshake('hello');
/** Content script → page: the extension runs on this granted site; a page that exposes a host says hello. */
export const ExtensionReadySchema = handshake('ready');
/** Content script → page, with exactly one transferred MessagePort: the link. */
export const LinkOfferSchema = handshake('offer');
/** Any handshake message. */
export const HandshakeMessageSchema = z.discriminatedUnion('t', [
  PageHelloSchema,
  ExtensionReadySchema,
  LinkOfferSchema,
]);
/** Any handshake message. */
export type HandshakeMessage = z.infer<typeof HandshakeMessageSchema>;

// ---------------------------------------------------------------- link: extension → page

/** What the service worker asks the page's host SDK to run (context, list, call, batch). */
export const LinkRequestSchema = z
  .object({
    id: LinkIdSchema,
    sessionId: IdSchema,
    attachment: RequestAttachmentSchema,
    adapter: AdapterMaximumSchema,
    limits: RelayLimitsSchema,
    deadlineMs: z.number().int().positive(),
    op: OperationSchema.refine((op) => op.kind !== 'subscribe' && op.kind !== 'snapshot', {
      message: 'subscriptions and snapshots are served by the extension, not the page',
    }),
  })
  .strict();

/** One binding the service worker starts on the page (SPEC §7). */
export const LinkBindingRequestSchema = z
  .object({
    sessionId: IdSchema,
    subscriptionId: IdSchema,
    bindingId: IdSchema,
    channelId: IdSchema,
    target: TargetSchema,
    options: z.unknown(),
    attachment: RequestAttachmentSchema,
    bindingIndex: z.number().int().nonnegative().optional(),
    limits: RelayLimitsSchema.pick({ jsonDepth: true, stringLength: true }).optional(),
  })
  .strict();

/** How the bridge stands, as the page may show it (never the credential or the relay address). */
export const LinkStatusSchema = z
  .object({
    state: z.enum(['disconnected', 'connecting', 'pairing', 'paired', 'unpaired']),
    sessionId: IdSchema.nullable(),
    attachments: z.array(AttachmentSummarySchema).max(64),
    message: z.string().max(512).nullable(),
  })
  .strict();
/** How the bridge stands, as the page may show it. */
export type LinkStatus = z.infer<typeof LinkStatusSchema>;

/** Extension → page. `reset` comes from the content script: the service worker restarted, begin again. */
export const ExtensionMessageSchema = z.discriminatedUnion('t', [
  z.object({ t: z.literal('request'), request: LinkRequestSchema }).strict(),
  z.object({ t: z.literal('cancel'), id: LinkIdSchema }).strict(),
  z
    .object({
      t: z.literal('startBinding'),
      id: LinkIdSchema,
      handle: z.number().int().positive(),
      request: LinkBindingRequestSchema,
    })
    .strict(),
  z.object({ t: z.literal('stopBinding'), subscriptionId: IdSchema, bindingId: IdSchema }).strict(),
  z
    .object({ t: z.literal('capture'), id: LinkIdSchema, target: TargetSchema, maxPixels: z.number().int().positive() })
    .strict(),
  z.object({ t: z.literal('locate'), id: LinkIdSchema, target: TargetSchema }).strict(),
  z.object({ t: z.literal('grant'), grant: GrantSchema }).strict(),
  z.object({ t: z.literal('status'), status: LinkStatusSchema }).strict(),
  z.object({ t: z.literal('reset') }).strict(),
]);
/** Extension → page. */
export type ExtensionMessage = z.infer<typeof ExtensionMessageSchema>;

// ---------------------------------------------------------------- link: page → extension

const OutcomeErrorSchema = z.object({ ok: z.literal(false), error: ErrorObjectSchema }).strict();

/** What the host SDK answered. */
export const LinkOutcomeSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), data: z.unknown() }).strict(),
  OutcomeErrorSchema,
]);

/** A capture as it crosses JSON-only `chrome.runtime` messaging: a lossless PNG. */
export const LinkCaptureSchema = z.discriminatedUnion('ok', [
  z
    .object({
      ok: z.literal(true),
      /** Base64 PNG of the (possibly pre-scaled) bitmap; 12 MB of pixels stays far below this bound. */
      png: z.string().max(48 * 1024 * 1024),
      /** The target's full-resolution size. */
      width: z.number().int().positive(),
      height: z.number().int().positive(),
    })
    .strict(),
  OutcomeErrorSchema,
]);

const RectSchema = z
  .object({ x: z.number(), y: z.number(), width: z.number().nonnegative(), height: z.number().nonnegative() })
  .strict();

/** Where a target shows in the viewport, for the visible-tab capture (SPEC §8 "In the extension"). */
export const LinkViewSchema = z
  .object({
    rect: RectSchema,
    viewport: z.object({ width: z.number().positive(), height: z.number().positive() }).strict(),
    devicePixelRatio: z.number().positive(),
    visible: z.boolean(),
  })
  .strict();
/** Where a target shows in the viewport. */
export type LinkView = z.infer<typeof LinkViewSchema>;

/** Page → extension. */
export const PageMessageSchema = z.discriminatedUnion('t', [
  /** The page's session, sent on link and after every `reset`. */
  z.object({ t: z.literal('attach'), info: SessionInfoSchema, catalog: CatalogSchema }).strict(),
  z.object({ t: z.literal('update'), info: SessionInfoSchema, catalog: CatalogSchema }).strict(),
  z.object({ t: z.literal('result'), id: LinkIdSchema, outcome: LinkOutcomeSchema }).strict(),
  z
    .object({
      t: z.literal('progress'),
      id: LinkIdSchema,
      progress: z.number().nonnegative(),
      total: z.number().nonnegative().optional(),
    })
    .strict(),
  z
    .object({
      t: z.literal('bindingStarted'),
      id: LinkIdSchema,
      outcome: z.union([z.object({ ok: z.literal(true) }).strict(), OutcomeErrorSchema]),
    })
    .strict(),
  z.object({ t: z.literal('captured'), id: LinkIdSchema, outcome: LinkCaptureSchema }).strict(),
  z.object({ t: z.literal('located'), id: LinkIdSchema, view: LinkViewSchema.nullable() }).strict(),
  /** Binding events in a batch (see the bridge's eventBatch.ts): a negative handle is a dropped event. */
  z
    .object({ t: z.literal('events'), h: z.array(z.number().int()).max(4096), p: z.array(z.unknown()).max(4096) })
    .strict(),
  z.object({ t: z.literal('targetUnregistered'), target: TargetSchema }).strict(),
]);
/** Page → extension. */
export type PageMessage = z.infer<typeof PageMessageSchema>;

/** Service worker → content script, once, when it accepts a tab's Port (the site is granted). */
export const TabAcceptedSchema = z.object({ t: z.literal('accepted') }).strict();

// ---------------------------------------------------------------- popup ↔ service worker

/** One recent call on a site: no argument values, ever. */
export const ActivityItemSchema = z
  .object({
    at: z.string().max(40),
    controlId: z.string().max(256),
    outcome: z.string().max(64),
    durationMs: z.number().nonnegative(),
  })
  .strict();
/** One recent call on a site. */
export type ActivityItem = z.infer<typeof ActivityItemSchema>;

/** A site the person allowed, with its grant. */
export const SiteGrantSchema = z
  .object({ origin: SiteOriginSchema, grant: GrantSchema, addedAt: z.string().max(40) })
  .strict();
/** A site the person allowed. */
export type SiteGrant = z.infer<typeof SiteGrantSchema>;

/** One attached tab's session. */
export const TabSessionViewSchema = z
  .object({
    tabId: z.number().int(),
    origin: SiteOriginSchema,
    title: z.string().max(200),
    sessionId: IdSchema.nullable(),
    open: z.boolean(),
    attachments: z.array(AttachmentSummarySchema).max(64),
    environment: EnvironmentSchema.nullable(),
  })
  .strict();
/** One attached tab's session. */
export type TabSessionView = z.infer<typeof TabSessionViewSchema>;

/** Everything the popup shows. */
export const PopupStateSchema = z
  .object({
    relay: z
      .object({
        state: LinkStatusSchema.shape.state,
        message: z.string().max(512).nullable(),
        url: z.string().max(2048),
        paired: z.boolean(),
      })
      .strict(),
    /** The grant new sites start with (a pairing link may propose one). */
    defaultGrant: GrantSchema,
    sites: z.array(SiteGrantSchema).max(256),
    sessions: z.array(TabSessionViewSchema).max(256),
    activity: z.record(SiteOriginSchema, z.array(ActivityItemSchema).max(64)),
    notice: z.string().max(512).nullable(),
  })
  .strict();
/** Everything the popup shows. */
export type PopupState = z.infer<typeof PopupStateSchema>;

/** Popup → service worker. */
export const PopupCommandSchema = z.discriminatedUnion('t', [
  z.object({ t: z.literal('pair'), code: z.string().min(1).max(64) }).strict(),
  z.object({ t: z.literal('setRelayUrl'), url: z.string().min(1).max(2048) }).strict(),
  z.object({ t: z.literal('allowSite'), origin: SiteOriginSchema, grant: GrantSchema }).strict(),
  z.object({ t: z.literal('setGrant'), origin: SiteOriginSchema, grant: GrantSchema }).strict(),
  z.object({ t: z.literal('revokeSite'), origin: SiteOriginSchema }).strict(),
  z.object({ t: z.literal('detach'), sessionId: IdSchema }).strict(),
]);
/** Popup → service worker. */
export type PopupCommand = z.infer<typeof PopupCommandSchema>;

/** Service worker → popup. */
export const PopupUpdateSchema = z.object({ t: z.literal('state'), state: PopupStateSchema }).strict();
