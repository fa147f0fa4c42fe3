/**
 * The host SDK's public API: what a trading terminal imports to declare its
 * controllers, register targets, mount controllers and answer the bridge.
 * Any new export here becomes public API.
 */
export { createTerminalHost } from './host.js';
export { quotesChannel, tradingEventsChannel } from './channels/builtins.js';
export { declareChannel } from './channels/declareChannel.js';
export type { ChannelDeclaration, ChannelEventOf, ChannelOptionsOf, ChannelSource } from './channels/declareChannel.js';
export { MAX_EVENT_BYTES } from './channels/projection.js';
export { arg, control, declareController } from './declare/declare.js';
export type { ArgSpec, ArgsOf, ControlSpec, ControllerDeclaration, ResultOf } from './declare/declare.js';
export { ControlFailure, controlFailure } from './outcomes/failures.js';
export type { FailureInfo, FailureKind } from './outcomes/failures.js';
export { IdbLedger, LedgerReadError } from './ledger/idbLedger.js';
export type { IdbLedgerOptions } from './ledger/idbLedger.js';
export { MemoryLedger } from './ledger/memoryLedger.js';
export { LedgerEntrySchema } from './ledger/operationLedger.js';
export type { LedgerEntry, LedgerKey, LedgerOutcome, LedgerState, OperationLedger } from './ledger/operationLedger.js';
export type {
  ActivityEntry,
  Availability,
  BindingRequest,
  BindingSink,
  BindingSinkEvent,
  BindingStart,
  CaptureOptions,
  CaptureOutcome,
  Catalog,
  ConfirmHandler,
  ControlContext,
  ControllerImpl,
  MountOptions,
  MountedController,
  Reconciliation,
  RenderSource,
  RequestHooks,
  RevisionHandle,
  SessionOutcome,
  SessionRequest,
  SurfacePolicy,
  TargetHandle,
  TargetRegistration,
  TerminalHost,
  TerminalHostOptions,
} from './types.js';
