/**
 * The host's observation surface (SPEC §7, §8): channel sources, the bindings
 * the bridge runtime starts and stops, target-unregistered notices, and
 * captures. Kept apart from the call path in host.ts.
 */
import { makeError, targetKey, type Target } from '../../protocol/index.js';
import { captureTarget } from '../capture/capture.js';
import type { ChannelSource } from './declareChannel.js';
import type { HostCore } from '../core.js';
import { listenerSet } from '../listeners.js';
import type { TerminalHost } from '../types.js';

type ObserveMethods = Pick<
  TerminalHost,
  'provideChannel' | 'startBinding' | 'stopBinding' | 'onTargetUnregistered' | 'capture'
>;

/**
 * Wires a host's channels and captures. When a target unregisters, its
 * sources are released first (synchronously), then listeners hear of it.
 */
export function observeMethods(core: HostCore): ObserveMethods {
  const unregistered = listenerSet<Target>();
  core.registry.onUnregister((entry) => {
    core.channels.releaseTarget(entry);
    unregistered.notify(entry.target);
  });
  return {
    provideChannel(target, channel, source) {
      const entry = core.registry.get(target);
      if (!entry) throw new Error(`Target ${targetKey(target)} is not registered; call registerTarget first.`);
      core.channels.provide(entry, channel, source as ChannelSource);
    },
    startBinding(request, sink) {
      try {
        return Promise.resolve(core.channels.start(core.registry.get(request.target), request, sink));
      } catch {
        const error = makeError('internal_error', 'The terminal SDK could not start this binding; nothing is bound.');
        return Promise.resolve({ ok: false, error });
      }
    },
    stopBinding: (subscriptionId, bindingId) => core.channels.stop(subscriptionId, bindingId),
    onTargetUnregistered: (listener) => unregistered.subscribe(listener),
    capture: (target, options) => captureTarget(core.registry.get(target), options),
  };
}
