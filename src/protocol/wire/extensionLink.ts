/**
 * The Chrome extension's own wire shapes (SPEC §10): the handshake on `window`
 * between a terminal page and the extension's content script, the link the
 * content script bridges between the page's host SDK and the service worker
 * (a private MessagePort, then a `chrome.runtime` Port), and the popup's
 * messages to the service worker. Every hop parses these; nothing is cast.
 */
import * as z from 'zod/mini';
import { EnvironmentSchema } from '../envelope.js';
import { HOST_LINK_ANSWERS, HOST_LINK_CALLS } from './hostLink.js';
import { GrantSchema } from '../policy.js';
import { CatalogSchema } from './relay.js';
import { AttachmentSummarySchema, SessionInfoSchema } from '../resources.js';
import { IdSchema } from '../target.js';

/** Version of the page ↔ extension link; a page and an extension of different versions do not link. */
export const EXTENSION_LINK_VERSION = 1;
/** Tag of every `window` message of the handshake, so unrelated page messages are told apart at once. */
export const EXTENSION_LINK_TAG = 'tradescript.extensionLink';

/** A site origin as the extension grants it: `http(s)://host[:port]`, no path. */
export const SiteOriginSchema = z
  .string()
  .check(z.maxLength(256), z.refine(isSiteOrigin, { message: 'not a normalized http(s) origin' }));

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
  z.strictObject({ tag: z.literal(EXTENSION_LINK_TAG), v: z.literal(EXTENSION_LINK_VERSION), t: z.literal(t) });

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

/** How the bridge stands, as the page may show it (never the credential or the relay address). */
export const LinkStatusSchema = z.strictObject({
  state: z.enum(['disconnected', 'connecting', 'pairing', 'paired', 'unpaired']),
  sessionId: z.nullable(IdSchema),
  attachments: z.array(AttachmentSummarySchema).check(z.maxLength(64)),
  message: z.nullable(z.string().check(z.maxLength(512))),
  tradingEnabled: z.optional(z.boolean()),
});
/** How the bridge stands, as the page may show it. */
export type LinkStatus = z.infer<typeof LinkStatusSchema>;

/**
 * Extension → page: the host calls (`hostLink.ts`) and the extension's own
 * notices. `reset` comes from the content script: the service worker
 * restarted, begin again.
 */
export const ExtensionMessageSchema = z.discriminatedUnion('t', [
  ...HOST_LINK_CALLS,
  z.strictObject({ t: z.literal('grant'), grant: GrantSchema }),
  z.strictObject({ t: z.literal('status'), status: LinkStatusSchema }),
  z.strictObject({ t: z.literal('reset') }),
]);
/** Extension → page. */
export type ExtensionMessage = z.infer<typeof ExtensionMessageSchema>;

// ---------------------------------------------------------------- link: page → extension

/** Page → extension: the host's answers and events (`hostLink.ts`), and its session. */
export const PageMessageSchema = z.discriminatedUnion('t', [
  ...HOST_LINK_ANSWERS,
  /** The page's session, sent on link and after every `reset`. */
  z.strictObject({ t: z.literal('attach'), info: SessionInfoSchema, catalog: CatalogSchema }),
  z.strictObject({ t: z.literal('update'), info: SessionInfoSchema, catalog: CatalogSchema }),
]);
/** Page → extension. */
export type PageMessage = z.infer<typeof PageMessageSchema>;

/** Service worker → content script, once, when it accepts a tab's Port (the site is granted). */
export const TabAcceptedSchema = z.strictObject({ t: z.literal('accepted') });

// ---------------------------------------------------------------- popup ↔ service worker

/** One recent call on a site: no argument values, ever. */
export const ActivityItemSchema = z.strictObject({
  at: z.string().check(z.maxLength(40)),
  controlId: z.string().check(z.maxLength(256)),
  outcome: z.string().check(z.maxLength(64)),
  durationMs: z.number().check(z.nonnegative()),
});
/** One recent call on a site. */
export type ActivityItem = z.infer<typeof ActivityItemSchema>;

/** A site the person allowed, with its grant. */
export const SiteGrantSchema = z.strictObject({
  origin: SiteOriginSchema,
  grant: GrantSchema,
  addedAt: z.string().check(z.maxLength(40)),
});
/** A site the person allowed. */
export type SiteGrant = z.infer<typeof SiteGrantSchema>;

/** One attached tab's session. */
export const TabSessionViewSchema = z.strictObject({
  tabId: z.int(),
  origin: SiteOriginSchema,
  title: z.string().check(z.maxLength(200)),
  sessionId: z.nullable(IdSchema),
  open: z.boolean(),
  attachments: z.array(AttachmentSummarySchema).check(z.maxLength(64)),
  environment: z.nullable(EnvironmentSchema),
});
/** One attached tab's session. */
export type TabSessionView = z.infer<typeof TabSessionViewSchema>;

/** Everything the popup shows. */
export const PopupStateSchema = z.strictObject({
  relay: z.strictObject({
    state: LinkStatusSchema.shape.state,
    message: z.nullable(z.string().check(z.maxLength(512))),
    url: z.string().check(z.maxLength(2048)),
    paired: z.boolean(),
    /** A bearer token is set for the relay (a vendor's, SPEC §14); the token itself is never shown. */
    token: z.optional(z.boolean()),
  }),
  /** The grant new sites start with (a pairing link may propose one). */
  defaultGrant: GrantSchema,
  sites: z.array(SiteGrantSchema).check(z.maxLength(256)),
  sessions: z.array(TabSessionViewSchema).check(z.maxLength(256)),
  activity: z.record(SiteOriginSchema, z.array(ActivityItemSchema).check(z.maxLength(64))),
  notice: z.nullable(z.string().check(z.maxLength(512))),
});
/** Everything the popup shows. */
export type PopupState = z.infer<typeof PopupStateSchema>;

/** Popup → service worker. */
export const PopupCommandSchema = z.discriminatedUnion('t', [
  z.strictObject({ t: z.literal('pair'), code: z.string().check(z.minLength(1), z.maxLength(64)) }),
  z.strictObject({
    t: z.literal('setRelayUrl'),
    url: z.string().check(z.minLength(1), z.maxLength(2048)),
    /** A vendor relay's bearer token (SPEC §14): a new one replaces it, `null` removes it, absent keeps it. */
    token: z.optional(z.nullable(z.string().check(z.minLength(1), z.maxLength(512)))),
  }),
  z.strictObject({ t: z.literal('allowSite'), origin: SiteOriginSchema, grant: GrantSchema }),
  z.strictObject({ t: z.literal('setGrant'), origin: SiteOriginSchema, grant: GrantSchema }),
  z.strictObject({ t: z.literal('revokeSite'), origin: SiteOriginSchema }),
  z.strictObject({ t: z.literal('detach'), sessionId: IdSchema }),
]);
/** Popup → service worker. */
export type PopupCommand = z.infer<typeof PopupCommandSchema>;

/** Service worker → popup. */
export const PopupUpdateSchema = z.strictObject({ t: z.literal('state'), state: PopupStateSchema });
