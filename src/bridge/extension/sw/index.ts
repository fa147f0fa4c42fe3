/**
 * The service-worker entry of the bridge (SPEC §1, §10): everything the Chrome
 * extension's service worker (extension/src/sw) takes from the bridge, in one
 * place, so the extension does not reach into the bridge's modules: the relay
 * connection and its credential format, one tab's session on the host-call
 * link, the subscription journal, the visible-tab crop and the activity feed.
 * Not a package export: the extension is built from this repository.
 */
export { RelayClient } from '../../relay/relayClient.js';
export { parseStoredCredential, type BrowserCredentialStore } from '../../relay/browserCredentials.js';
export type { LinkEndpoint } from '../../link/linkEndpoint.js';
export { createIdbSubscriptionJournal } from '../../observe/subscriptionJournal.js';
export { BRIDGE_VERSION } from '../../page/version.js';
export { pushActivity } from './activity.js';
export { pngBase64ToBitmap } from '../pngEncode.js';
export { hostPermission } from './siteOrigin.js';
export {
  TabSession,
  tabLinkClient,
  type PageAttach,
  type TabLinkClient,
  type TabNotice,
  type VisibleCapture,
} from './tabSession.js';
export { cropRegion, keepsWhole, pngSize, wholeOnScreen } from './visibleCrop.js';
