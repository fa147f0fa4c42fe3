/**
 * The tables, in the order they run and print. A table that the product cannot
 * serve yet returns `{ notMeasurable: why }`; its measuring code stays ready.
 */
import { runBatch } from './batch.mjs';
import { runCalls } from './calls.mjs';
import { runCluster } from './cluster.mjs';
import { runEvents } from './events.mjs';
import { runFootprint } from './footprint.mjs';
import { runSnapshot } from './snapshot.mjs';
import { runSnapshotExtension } from './snapshotExtension.mjs';

/** @type {{ id: string, number: number | string, title: string, run: (ctx: import('../run.mjs').TableContext) => Promise<import('../run.mjs').TableResult> }[]} */
export const TABLES = [
  { id: 'calls', number: 1, title: 'CALL ROUND TRIP', run: runCalls },
  { id: 'batch', number: 2, title: 'BATCH: 25 reads, one tradescript_batch vs 25 sequential calls', run: runBatch },
  { id: 'events', number: 3, title: 'EVENTS into a polled subscription', run: runEvents },
  { id: 'snapshot', number: 4, title: 'SNAPSHOT of a 1280×720 widget', run: runSnapshot },
  {
    id: 'snapshotExtension',
    number: '4b',
    title: 'SNAPSHOT through the Chrome extension: the visible tab cropped to the target',
    run: runSnapshotExtension,
  },
  { id: 'footprint', number: 5, title: 'FOOTPRINT', run: runFootprint },
  { id: 'cluster', number: 6, title: 'CLUSTER: a call through a non-owning node vs its owner', run: runCluster },
];
