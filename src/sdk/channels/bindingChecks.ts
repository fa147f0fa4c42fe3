/**
 * What a binding start checks before it touches a source (SPEC §7): the
 * target is registered, the channel is provided there and allowed by the
 * surface policy, the binding id is free, and the options pass the channel's
 * schema. Diagnostics point at `["bindings", i, "options", …]` and never echo
 * what was sent.
 */
import {
  parseWithDiagnostics,
  makeError,
  matchesControlPattern,
  type ErrorObject,
  type ValidationIssue,
} from '../../protocol/index.js';
import type { TargetEntry } from '../declare/targets.js';
import type { BindingRequest } from '../types.js';
import { invalidInput } from '../dispatch/validation.js';
import type { ChannelDeclaration } from './declareChannel.js';
import type { ProvidedChannel } from './channelHub.js';

type Refusal = { ok: false; error: ErrorObject };

const TARGET_NOT_FOUND =
  'This target is not registered in the session; read availableTargets from tradescript_get_context on the session target.';
const NOT_PROVIDED =
  'This channel is unavailable on this target (not-mounted): read availableSubscriptions from tradescript_get_context for this exact target and bind one of those.';
const DENIED =
  'This channel is unavailable on this target (surface-policy): the terminal does not allow it on this surface.';

/** True when the target's surface policy denies a channel (`denyChannels` patterns). */
export function channelDenied(entry: TargetEntry, channelId: string): boolean {
  const patterns = entry.registration.surfacePolicy?.denyChannels;
  return patterns?.some((pattern) => matchesControlPattern(channelId, pattern)) ?? false;
}

/** The target and the provided channel a binding names, or why it cannot start. */
export function resolveBinding(
  entry: TargetEntry | undefined,
  request: BindingRequest,
): { ok: true; entry: TargetEntry; provided: ProvidedChannel } | Refusal {
  if (!entry) return { ok: false, error: makeError('target_not_found', TARGET_NOT_FOUND) };
  const provided = entry.channels.get(request.channelId);
  if (!provided) {
    return { ok: false, error: makeError('control_unavailable', NOT_PROVIDED, { details: { reason: 'not-mounted' } }) };
  }
  if (channelDenied(entry, request.channelId)) {
    return { ok: false, error: makeError('control_unavailable', DENIED, { details: { reason: 'surface-policy' } }) };
  }
  return { ok: true, entry, provided };
}

function refuse(message: string, issues: ValidationIssue[]): Refusal {
  return { ok: false, error: invalidInput(message, issues) };
}

/** The parsed options of a binding (undefined when omitted and optional), or `invalid_input`. */
export function checkOptions(
  channel: ChannelDeclaration,
  request: BindingRequest,
  duplicate: boolean,
): { ok: true; options: unknown } | Refusal {
  const at = ['bindings', request.bindingIndex ?? 0];
  if (duplicate) {
    const message = 'This bindingId is already used in this subscription; give each binding its own id.';
    return refuse(message, [{ path: [...at, 'bindingId'], code: 'invalid_value', message }]);
  }
  if (request.options === undefined) {
    if (!channel.optionsRequired) return { ok: true, options: undefined };
    const message = "This channel needs options; see optionsContract in the channel's descriptor.";
    return refuse(message, [{ path: [...at, 'options'], code: 'invalid_type', message }]);
  }
  const parsed = parseWithDiagnostics(channel.options, request.options, [...at, 'options']);
  if (parsed.ok) return { ok: true, options: parsed.data };
  const message = "The binding options do not match the channel's optionsContract; fix the listed fields.";
  return refuse(message, parsed.issues);
}

/** The host's source threw while starting. */
export function sourceFailed(): ErrorObject {
  return makeError(
    'control_failed',
    "The terminal's source for this channel failed to start; nothing is bound. Re-read context and start again.",
  );
}
