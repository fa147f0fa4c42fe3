/**
 * The channels of one host (SPEC §7): the declared vocabulary, the sources
 * provided per target, and the live bindings the bridge runtime starts and
 * stops. A binding's options are validated before its source is touched; its
 * source is released exactly once (stop, or its target unregistering).
 */
import { targetKey, type ChannelDescriptor } from '../../protocol/index.js';
import type { TargetEntry } from '../declare/targets.js';
import type { BindingRequest, BindingSink, BindingStart } from '../types.js';
import { BUILTIN_CHANNEL_DECLARATIONS, projectorFor } from './builtins.js';
import { Binding } from './binding.js';
import type { ChannelDeclaration, ChannelSource } from './declareChannel.js';
import { describeChannel } from './describeChannel.js';
import { channelDenied, checkOptions, resolveBinding, sourceFailed } from './bindingChecks.js';
import { eventBounds } from './projection.js';

/** A source provided for one channel on one target. */
export interface ProvidedChannel {
  readonly declaration: ChannelDeclaration;
  readonly source: ChannelSource;
}

function bindingKey(subscriptionId: string, bindingId: string): string {
  return `${subscriptionId}\u0000${bindingId}`;
}

interface Live {
  readonly binding: Binding;
  readonly entry: TargetEntry;
}

/** Declared channels, provided sources and live bindings of one host. */
export class ChannelHub {
  private readonly declared = new Map<string, ChannelDeclaration>();
  /** Live bindings by (subscriptionId, bindingId), and the same per target for unregistering. */
  private readonly live = new Map<string, Live>();
  private readonly byTarget = new Map<TargetEntry, Set<string>>();

  constructor(declarations: readonly ChannelDeclaration[] = []) {
    for (const declaration of [...BUILTIN_CHANNEL_DECLARATIONS, ...declarations]) this.declare(declaration);
  }

  /** Adds a channel to the vocabulary; another declaration with the same id is refused. */
  declare(declaration: ChannelDeclaration): void {
    const known = this.declared.get(declaration.channelId);
    if (known && known !== declaration) {
      throw new Error(`Another channel with id "${declaration.channelId}" is already declared.`);
    }
    this.declared.set(declaration.channelId, declaration);
  }

  /** Every declared channel's descriptor (the catalog). */
  catalog(): ChannelDescriptor[] {
    return [...this.declared.values()].map(describeChannel);
  }

  /** Provides a channel's source on a registered target. */
  provide(entry: TargetEntry, declaration: ChannelDeclaration, source: ChannelSource): void {
    const key = targetKey(entry.target);
    if (!declaration.targetScopes.includes(entry.target.scope)) {
      throw new Error(`Channel ${declaration.channelId} cannot be provided on a ${entry.target.scope} target.`);
    }
    if (entry.channels.has(declaration.channelId)) {
      throw new Error(`Channel ${declaration.channelId} is already provided on ${key}.`);
    }
    this.declare(declaration);
    entry.channels.set(declaration.channelId, { declaration, source });
  }

  /** Channels provided on a target that its surface policy allows, in provision order. */
  available(entry: TargetEntry): ChannelDescriptor[] {
    const out: ChannelDescriptor[] = [];
    for (const [channelId, provided] of entry.channels) {
      if (!channelDenied(entry, channelId)) out.push(describeChannel(provided.declaration));
    }
    return out;
  }

  /** Starts one binding; see {@link TerminalHost.startBinding}. */
  start(entry: TargetEntry | undefined, request: BindingRequest, sink: BindingSink): BindingStart {
    const resolved = resolveBinding(entry, request);
    if (!resolved.ok) return resolved;
    const key = bindingKey(request.subscriptionId, request.bindingId);
    const checked = checkOptions(resolved.provided.declaration, request, this.live.has(key));
    if (!checked.ok) return checked;
    const projector = projectorFor(resolved.provided.declaration);
    const binding = new Binding(request.bindingId, projector, eventBounds(request.limits), sink);
    this.remember(key, { binding, entry: resolved.entry });
    if (!binding.open(resolved.provided.source, checked.options)) {
      this.forget(key);
      return { ok: false, error: sourceFailed() };
    }
    return { ok: true };
  }

  /** Stops one binding; unknown or already stopped is harmless. */
  stop(subscriptionId: string, bindingId: string): void {
    this.forget(bindingKey(subscriptionId, bindingId))?.binding.close();
  }

  /** Releases every binding of a target synchronously and forgets its sources. */
  releaseTarget(entry: TargetEntry): void {
    entry.channels.clear();
    for (const key of [...(this.byTarget.get(entry) ?? [])]) this.forget(key)?.binding.close();
  }

  /** How many bindings are live. */
  get size(): number {
    return this.live.size;
  }

  private remember(key: string, live: Live): void {
    this.live.set(key, live);
    const keys = this.byTarget.get(live.entry) ?? new Set<string>();
    keys.add(key);
    this.byTarget.set(live.entry, keys);
  }

  private forget(key: string): Live | undefined {
    const live = this.live.get(key);
    if (!live) return undefined;
    this.live.delete(key);
    const keys = this.byTarget.get(live.entry);
    keys?.delete(key);
    if (keys?.size === 0) this.byTarget.delete(live.entry);
    return live;
  }
}
