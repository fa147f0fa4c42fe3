/**
 * `tradescript_get_context` on the page (SPEC §3): one target's state,
 * capabilities, revisions, subscription channels and access, plus every
 * registered target (with whether it is renderable) as the routing authority.
 */
import {
  checkJsonShape,
  limitExceeded,
  makeError,
  narrowest,
  type AdapterMaximum,
  type AvailableTarget,
  type ContextData,
  type Environment,
  type ErrorObject,
  type Grant,
  type RelayLimits,
  type Target,
} from '../../protocol/index.js';
import { isRenderable } from '../capture/capture.js';
import type { HostCore } from '../core.js';
import { fitsIn } from '../dispatch/resultLimits.js';
import { redactJson } from '../dispatch/redact.js';
import type { RevisionStore } from '../policy/revisions.js';
import type { TargetEntry } from '../declare/targets.js';

/** What context is read with. */
export interface ContextRequest {
  sessionId: string;
  target: Target;
  adapter: AdapterMaximum;
  limits: RelayLimits;
  grant: Grant;
  environment: Environment;
}

function availableTarget(entry: TargetEntry): AvailableTarget {
  return {
    target: entry.target,
    label: entry.registration.label,
    controllers: [...entry.mounts.keys()],
    renderable: isRenderable(entry),
  };
}

/** Target state at the top level, each mounted controller's state under its name. */
function stateOf(entry: TargetEntry): Record<string, unknown> {
  const state: Record<string, unknown> = { ...(entry.registration.state?.() ?? {}) };
  for (const [name, mount] of entry.mounts) {
    if (mount.options.state) state[name] = mount.options.state();
  }
  return JSON.parse(JSON.stringify(state)) as Record<string, unknown>;
}

function revisionsOf(entry: TargetEntry, revisions: RevisionStore): ContextData['controllerRevisions'] {
  const out: ContextData['controllerRevisions'] = {};
  for (const [name, mount] of entry.mounts) {
    out[name] = revisions.values(entry.target, name, mount.declaration.revisionDomains);
  }
  return out;
}

/** Reads the context of one registered target. */
export function readContext(
  core: Pick<HostCore, 'registry' | 'revisions' | 'channels'>,
  request: ContextRequest,
): { ok: true; data: ContextData } | { ok: false; error: ErrorObject } {
  const { registry, revisions } = core;
  const entry = registry.get(request.target);
  if (!entry) {
    const message =
      'This target is not registered in the session; read availableTargets from tradescript_get_context on the session target.';
    return { ok: false, error: makeError('target_not_found', message) };
  }
  let state: Record<string, unknown>;
  try {
    state = stateOf(entry);
  } catch {
    return { ok: false, error: makeError('internal_error', 'The terminal could not read the state of this target.') };
  }
  // state sits two levels down in the envelope (data.state).
  const { jsonDepth, stringLength } = request.limits;
  const breach = checkJsonShape(state, { jsonDepth: Math.max(1, jsonDepth - 2), stringLength });
  if (breach) return { ok: false, error: limitExceeded(breach.limit, breach.max) };
  const subscriptions = core.channels.available(entry);
  const data: ContextData = {
    sessionId: request.sessionId,
    target: entry.target,
    label: entry.registration.label,
    state: redactJson(state) as Record<string, unknown>,
    capabilities: {
      controllers: [...entry.mounts.keys()],
      renderable: isRenderable(entry),
      channels: subscriptions.map((c) => c.channelId),
    },
    availableTargets: registry.all().map(availableTarget),
    controllerRevisions: revisionsOf(entry, revisions),
    availableSubscriptions: subscriptions,
    environment: request.environment,
    access: {
      grant: request.grant,
      adapterMaximum: request.adapter.maxAccess,
      effective: narrowest(request.grant, request.adapter.maxAccess),
    },
  };
  if (!fitsIn(data, request.limits.resultBytes))
    return { ok: false, error: limitExceeded('resultBytes', request.limits.resultBytes) };
  return { ok: true, data };
}
