/**
 * The bridge worker (a module worker the page starts in `connectBridge`): the
 * observer side of the page's bridge (subscriptions, snapshots, the relay's
 * timers) on the worker's own scope, with the journal in IndexedDB.
 */
import { createIdbSubscriptionJournal } from '../observe/subscriptionJournal.js';
import { serveObserver } from './observerServer.js';

serveObserver(globalThis as unknown as Parameters<typeof serveObserver>[0], {
  journal: createIdbSubscriptionJournal(),
});
