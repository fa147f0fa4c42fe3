/**
 * What the extension keeps (SPEC §9, §10). `chrome.storage.local` survives
 * browser restarts: the relay credential, the relay address, the sites the
 * person allowed with their grants, and recent activity. `chrome.storage.session`
 * survives service-worker restarts only: each tab's kept session id. Neither is
 * readable by pages, and the content script never reads either. Every read is
 * parsed: a value that does not fit is treated as absent.
 */
import { z } from 'zod';
import { parseStoredCredential, type BrowserCredentialStore } from '../../../src/bridge/extension/sw/index.js';
import {
  ActivityItemSchema,
  SiteGrantSchema,
  SiteOriginSchema,
  type ActivityItem,
  type SiteGrant,
} from '../../../src/protocol/wire/extensionLink.js';
import { CredentialSchema, DEFAULT_GRANT, GrantSchema, IdSchema, type Grant } from '../../../src/protocol/index.js';

/** The relay address until the person sets another (SPEC §11). */
export const DEFAULT_RELAY_URL = 'ws://127.0.0.1:7391/relay';

const KEYS = {
  credential: 'credential',
  settings: 'settings',
  sites: 'sites',
  activity: 'activity',
  tabs: 'tabs',
} as const;

const SettingsSchema = z
  .object({
    relayUrl: z.string().min(1).max(2048),
    defaultGrant: GrantSchema,
    /** A vendor relay's bearer token (SPEC §14), sent as the `bearer.<token>` subprotocol. */
    relayToken: z.string().min(1).max(512).optional(),
  })
  .strict();
/** The person's settings. */
export type Settings = z.infer<typeof SettingsSchema>;

const SitesSchema = z.array(SiteGrantSchema).max(256);
const ActivitySchema = z.record(SiteOriginSchema, z.array(ActivityItemSchema).max(64));
const KeptTabSchema = z.object({ origin: SiteOriginSchema, sessionId: IdSchema }).strict();
const KeptTabsSchema = z.record(z.string().regex(/^\d+$/), KeptTabSchema);
/** A tab's kept session id, with the site it belonged to. */
export type KeptTab = z.infer<typeof KeptTabSchema>;

async function read<T>(area: chrome.storage.StorageArea, key: string, schema: z.ZodType<T>): Promise<T | null> {
  const stored = (await area.get(key))[key];
  const parsed = schema.safeParse(stored);
  return parsed.success ? parsed.data : null;
}

/** Keeps storage out of reach of content scripts (a content script never needs it). */
export async function restrictStorage(): Promise<void> {
  await chrome.storage.local.setAccessLevel?.({ accessLevel: 'TRUSTED_CONTEXTS' }).catch(() => undefined);
  await chrome.storage.session.setAccessLevel?.({ accessLevel: 'TRUSTED_CONTEXTS' }).catch(() => undefined);
}

/** The relay credential in `chrome.storage.local`. */
export const chromeCredentialStore: BrowserCredentialStore = {
  load: async () => parseStoredCredential((await chrome.storage.local.get(KEYS.credential))[KEYS.credential]),
  save: (credential) => chrome.storage.local.set({ [KEYS.credential]: CredentialSchema.parse(credential) }),
  clear: () => chrome.storage.local.remove(KEYS.credential),
};

/** The settings, or the defaults. */
export async function loadSettings(): Promise<Settings> {
  return (
    (await read(chrome.storage.local, KEYS.settings, SettingsSchema)) ?? {
      relayUrl: DEFAULT_RELAY_URL,
      defaultGrant: DEFAULT_GRANT,
    }
  );
}

/** Saves the settings. */
export async function saveSettings(settings: Settings): Promise<void> {
  await chrome.storage.local.set({ [KEYS.settings]: SettingsSchema.parse(settings) });
}

/** The allowed sites. */
export async function loadSites(): Promise<SiteGrant[]> {
  return (await read(chrome.storage.local, KEYS.sites, SitesSchema)) ?? [];
}

/** Saves the allowed sites. */
export async function saveSites(sites: readonly SiteGrant[]): Promise<void> {
  await chrome.storage.local.set({ [KEYS.sites]: SitesSchema.parse(sites) });
}

/** Recent activity per site. */
export async function loadActivity(): Promise<Record<string, ActivityItem[]>> {
  return (await read(chrome.storage.local, KEYS.activity, ActivitySchema)) ?? {};
}

/** Saves recent activity. */
export async function saveActivity(activity: Record<string, ActivityItem[]>): Promise<void> {
  await chrome.storage.local.set({ [KEYS.activity]: activity });
}

/** Each tab's kept session id (this browser session only). */
export async function loadKeptTabs(): Promise<Record<string, KeptTab>> {
  return (await read(chrome.storage.session, KEYS.tabs, KeptTabsSchema)) ?? {};
}

let tabsWritten: Promise<void> = Promise.resolve();

/** Keeps (or, with null, forgets) one tab's session id; writes run one after another. */
export function keepTab(tabId: number, kept: KeptTab | null): Promise<void> {
  tabsWritten = tabsWritten
    .then(async () => {
      const tabs = await loadKeptTabs();
      if (kept) tabs[String(tabId)] = kept;
      else delete tabs[String(tabId)];
      await chrome.storage.session.set({ [KEYS.tabs]: tabs });
    })
    .catch(() => undefined);
  return tabsWritten;
}

/** The grant a pairing link proposed becomes the default for newly allowed sites. */
export function withDefaultGrant(settings: Settings, grant: Grant): Settings {
  return { ...settings, defaultGrant: grant };
}
