/**
 * `createTerminalHost`: the object a terminal builds once per tab. It keeps the
 * targets, mounted controllers, revisions, the person's grant and the operation
 * ledger, and answers the bridge runtime's requests without ever throwing.
 */
import { DEFAULT_GRANT, GrantSchema, RELAY_TIMING, limitExceeded, makeError, type Grant } from '../protocol/index.js';
import { runBatch } from './dispatch/runBatch.js';
import { ChannelHub } from './channels/channelHub.js';
import { readContext } from './reads/context.js';
import type { CallEnv, HostCore } from './core.js';
import { cancelOf, sleep as defaultSleep, startDeadline } from './dispatch/deadline.js';
import { describeCached } from './declare/descriptorCache.js';
import { Dispatcher, internalError } from './dispatch/dispatcher.js';
import { defaultLedger } from './ledger/defaultLedger.js';
import { listenerSet } from './listeners.js';
import { phaseMark } from './phaseMark.js';
import { listControls } from './declare/listing.js';
import { observeMethods } from './channels/observe.js';
import { RevisionStore } from './policy/revisions.js';
import { TargetRegistry } from './declare/targets.js';
import type {
  ActivityEntry,
  Catalog,
  RequestHooks,
  SessionOutcome,
  SessionRequest,
  TerminalHost,
  TerminalHostOptions,
} from './types.js';

function coreOf(options: TerminalHostOptions, grant: () => Grant, activity: (e: ActivityEntry) => void): HostCore {
  const revisions = new RevisionStore();
  const registry = new TargetRegistry(revisions, { label: options.sessionLabel ?? 'Session' });
  for (const declaration of options.controllers ?? []) registry.declare(declaration);
  return {
    registry,
    revisions,
    channels: new ChannelHub(options.channels),
    ledger: options.ledger ?? defaultLedger(),
    confirm: options.confirm,
    confirmationTimeoutMs: Math.min(options.confirmationTimeoutMs ?? Infinity, RELAY_TIMING.confirmationTimeoutMs),
    environment: options.environment,
    now: options.now ?? Date.now,
    grant,
    sleep: options.sleep ?? defaultSleep,
    activity,
  };
}

const NO_SESSION_ID =
  'The bridge sent this call without a session id, so its operation identity cannot be kept; nothing was dispatched. Reload the terminal tab and call again.';

/** The ledger key needs a real session id (SPEC §5); a call without one never reaches the dispatcher. */
function validSessionId(sessionId: unknown): sessionId is string {
  return typeof sessionId === 'string' && sessionId.length > 0;
}

/** Runs one request's operation; may throw on a defect (handle() turns that into internal_error). */
async function answer(
  core: HostCore,
  dispatcher: Dispatcher,
  request: SessionRequest,
  hooks: RequestHooks,
  env: CallEnv,
): Promise<SessionOutcome> {
  const { op } = request;
  if ((op.kind === 'call' || op.kind === 'batch') && !validSessionId(request.sessionId)) {
    return { ok: false, error: makeError('internal_error', NO_SESSION_ID) };
  }
  switch (op.kind) {
    case 'context':
      return readContext(core, {
        sessionId: request.sessionId,
        target: op.target,
        adapter: request.adapter,
        limits: request.limits,
        grant: core.grant(),
        environment: core.environment,
      });
    case 'listControls':
      return listControls(core.registry, op.input, request.adapter, core.grant());
    case 'call': {
      const outcome = await dispatcher.run(op.call, env);
      return outcome.ok ? { ok: true, data: outcome.receipt } : outcome;
    }
    case 'batch':
      return answerBatch(dispatcher, op, request, hooks, env);
    default:
      // The bridge runtime answers subscriptions and snapshots itself; anything else here is a defect.
      return { ok: false, error: makeError('internal_error', 'This request kind is not answered by the host SDK.') };
  }
}

async function answerBatch(
  dispatcher: Dispatcher,
  op: Extract<SessionRequest['op'], { kind: 'batch' }>,
  request: SessionRequest,
  hooks: RequestHooks,
  env: CallEnv,
): Promise<SessionOutcome> {
  const max = request.limits.batchCalls;
  if (op.calls.length > max) return { ok: false, error: limitExceeded('batchCalls', max) };
  const data = await runBatch({
    calls: op.calls,
    stopOnError: op.stopOnError,
    limits: request.limits,
    run: (call) => dispatcher.run(call, env),
    progress: hooks.progress,
  });
  return { ok: true, data };
}

/** Creates the host SDK of one terminal tab. */
export function createTerminalHost(options: TerminalHostOptions): TerminalHost {
  let grant: Grant = GrantSchema.parse(options.grant ?? DEFAULT_GRANT);
  const feed = listenerSet<ActivityEntry>();
  const core = coreOf(options, () => grant, feed.notify);
  const dispatcher = new Dispatcher(core);
  return {
    environment: options.environment,
    get grant() {
      return grant;
    },
    set grant(next: Grant) {
      grant = GrantSchema.parse(next);
    },
    registerTarget: (target, registration) => core.registry.register(target, registration),
    mount: (target, declaration, impl, mountOptions) =>
      core.registry.mount(target, declaration, impl, mountOptions ?? {}),
    async handle(request, hooks = {}) {
      phaseMark('call.handle');
      const deadline = startDeadline(request.deadlineMs);
      const { sessionId, attachment, adapter, limits } = request;
      const env: CallEnv = { sessionId, attachment, adapter, limits, deadline, cancel: cancelOf(hooks) };
      try {
        return await answer(core, dispatcher, request, hooks, env);
      } catch {
        return { ok: false, error: internalError() };
      } finally {
        deadline.dispose();
        phaseMark('call.handled');
      }
    },
    catalog: (): Catalog => ({
      controls: core.registry.declared().flatMap((d) => [...describeCached(d)]),
      channels: core.channels.catalog(),
    }),
    onActivity: (listener) => feed.subscribe(listener),
    ...observeMethods(core),
  };
}
