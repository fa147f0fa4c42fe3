/**
 * The effective policy of one control on one target (SPEC §5): adapter maximum
 * ∩ mounted controller support ∩ surface policy ∩ attachment grant ∩ execution
 * environment. The first failing layer is the reason; listing and calling use
 * this one function so they can never disagree.
 */
import {
  adapterDenial,
  allows,
  makeError,
  matchesControlPattern,
  type AdapterMaximum,
  type ErrorObject,
  type Grant,
  type PolicyLayer,
} from '../../protocol/index.js';
import type { ControlSpec } from '../declare/declare.js';
import { redactBrokerText } from '../dispatch/redact.js';
import type { Mount, TargetEntry } from '../declare/targets.js';
import type { Availability, SurfacePolicy } from '../types.js';

/** The verdict on one control. `layer: null` is a denial whose source named no layer (unclassified). */
export type PolicyVerdict = { allowed: true } | { allowed: false; layer: PolicyLayer | null; detail?: string };

/** What the verdict depends on. */
export interface PolicyInput {
  readonly controlId: string;
  readonly method: string;
  readonly spec: ControlSpec;
  readonly entry: TargetEntry;
  readonly mount: Mount | undefined;
  readonly adapter: AdapterMaximum;
  readonly grant: Grant;
}

function deny(layer: PolicyLayer | null, detail?: string): PolicyVerdict {
  return detail === undefined ? { allowed: false, layer } : { allowed: false, layer, detail };
}

/** The surface's own configuration: its access ceiling and denied patterns. */
function surfaceDenial(policy: SurfacePolicy | undefined, controlId: string, spec: ControlSpec): string | null {
  if (!policy) return null;
  if (policy.maxAccess && !allows(policy.maxAccess, spec.accessClass)) {
    return policy.detail ?? `This surface allows at most ${policy.maxAccess} access.`;
  }
  if (policy.deny?.some((pattern) => matchesControlPattern(controlId, pattern))) {
    return policy.detail ?? 'This surface does not allow this control.';
  }
  return null;
}

/** Asks the mount whether a method may run now; a throwing hook counts as unclassified. */
function availabilityOf(mount: Mount, method: string): Availability {
  const hook = mount.options.availability;
  if (!hook) return true;
  try {
    const answer = hook(method);
    return answer === true || (typeof answer === 'object' && answer !== null) ? answer : {};
  } catch {
    return {};
  }
}

/** The mounted-controller layer: mounted here, with the method implemented. */
function mountDenial(input: PolicyInput): string | null {
  if (!input.mount) return `Controller ${input.controlId.split('.')[0] ?? ''} is not mounted on this target.`;
  if (typeof input.mount.impl[input.method] !== 'function') {
    return 'The mounted controller does not implement this method.';
  }
  return null;
}

/** Evaluates the five layers in order and returns the first denial. */
export function evaluatePolicy(input: PolicyInput): PolicyVerdict {
  const { controlId, spec } = input;
  const adapter = adapterDenial(input.adapter, controlId, spec.accessClass);
  if (adapter) return deny('adapter-maximum', adapter);
  const unmounted = mountDenial(input);
  if (unmounted !== null || !input.mount) return deny('not-mounted', unmounted ?? undefined);
  const availability = availabilityOf(input.mount, input.method);
  const surface = surfaceDenial(input.entry.registration.surfacePolicy, controlId, spec);
  if (surface) return deny('surface-policy', surface);
  if (availability !== true && availability.reason === 'surface-policy') {
    return deny('surface-policy', availability.detail);
  }
  if (!allows(input.grant, spec.accessClass)) {
    return deny('attachment-grant', `The person's grant is ${input.grant}; this control needs ${spec.accessClass}.`);
  }
  if (availability === true) return { allowed: true };
  if (availability.reason === 'execution-environment') return deny('execution-environment', availability.detail);
  return deny(null, availability.detail);
}

const NEXT_STEP: Record<PolicyLayer, string> = {
  'adapter-maximum': 'This server process does not allow it.',
  'not-mounted': 'Call tradescript_list_controls for this target to see what is mounted.',
  'surface-policy': 'The terminal does not allow it on this surface.',
  'attachment-grant': 'The person must raise the grant in the terminal before you try again.',
  'execution-environment': 'The broker or environment does not support it now.',
};

/**
 * The error of a denied call: `execution_disabled` for a trade-class control
 * the adapter maximum denies, else `control_unavailable` naming the layer.
 */
export function policyError(verdict: { layer: PolicyLayer | null; detail?: string }, spec: ControlSpec): ErrorObject {
  const detail = redactBrokerText(verdict.detail);
  const { layer } = verdict;
  if (layer === 'adapter-maximum' && spec.accessClass === 'trade') {
    return makeError('execution_disabled', detail ?? 'Trading is off for this server.', {
      details: { reason: layer },
    });
  }
  const why = layer ? `(${layer})` : '(no reason given by the terminal)';
  const step = layer ? NEXT_STEP[layer] : NEXT_STEP['not-mounted'];
  const message = `This control is unavailable on this target ${why}: ${detail ?? step}${detail ? ` ${step}` : ''}`;
  return makeError('control_unavailable', message, { details: layer ? { reason: layer } : null });
}
