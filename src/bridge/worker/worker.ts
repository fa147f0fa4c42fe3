/**
 * The bridge worker (a module worker the page starts in `connectBridge`): the
 * runtime over the browser's WebSocket and IndexedDB, exposed with comlink.
 */
import { expose } from 'comlink';
import { createIdbCredentialStore } from '../relay/browserCredentials.js';
import { createBridgeRuntime } from './runtime.js';
import { createIdbSubscriptionJournal } from '../observe/subscriptionJournal.js';

expose(
  createBridgeRuntime({
    webSocket: WebSocket,
    credentials: createIdbCredentialStore(),
    journal: createIdbSubscriptionJournal(),
  }),
);
