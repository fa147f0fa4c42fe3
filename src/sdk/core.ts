/**
 * What the parts of one host share: its registry, counters, ledger, clock and
 * grant, and what each call runs with.
 */
import type {
  AdapterMaximum,
  CallReceipt,
  Environment,
  ErrorObject,
  Grant,
  RelayLimits,
  RequestAttachment,
} from '../protocol/index.js';
import type { ChannelHub } from './channels/channelHub.js';
import type { Deadline, Stop } from './dispatch/deadline.js';
import type { OperationLedger } from './ledger/operationLedger.js';
import type { RevisionStore } from './policy/revisions.js';
import type { TargetRegistry } from './declare/targets.js';
import type { ActivityEntry, ConfirmHandler } from './types.js';

/** The state and services of one host. */
export interface HostCore {
  readonly registry: TargetRegistry;
  readonly revisions: RevisionStore;
  readonly channels: ChannelHub;
  readonly ledger: OperationLedger;
  readonly confirm: ConfirmHandler | undefined;
  readonly confirmationTimeoutMs: number;
  readonly environment: Environment;
  /** Epoch milliseconds. */
  now(): number;
  /** The person's grant at this moment. */
  grant(): Grant;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  activity(entry: ActivityEntry): void;
}

/** What one call runs with. */
export interface CallEnv {
  /** The session the call came through: part of the ledger key (SPEC §5). */
  readonly sessionId: string;
  readonly attachment: RequestAttachment;
  readonly adapter: AdapterMaximum;
  readonly limits: RelayLimits;
  readonly deadline: Deadline;
  /** The MCP client's cancel (a read is abandoned; a dispatched mutation runs on). */
  readonly cancel: Stop;
}

/** How one call ended. */
export type CallOutcome = { ok: true; receipt: CallReceipt } | { ok: false; error: ErrorObject };
