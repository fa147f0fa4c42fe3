/**
 * Registered targets and the controllers mounted on them (SPEC §2, §5). The
 * session target is always registered; charts and widgets come and go.
 */
import { targetKey, type Target } from '../../protocol/index.js';
import type { ProvidedChannel } from '../channels/channelHub.js';
import type { ControllerDeclaration } from './declare.js';
import type { RevisionStore } from '../policy/revisions.js';
import type { MountOptions, MountedController, RevisionHandle, TargetHandle, TargetRegistration } from '../types.js';

/** One controller mounted on one target. */
export interface Mount {
  readonly declaration: ControllerDeclaration;
  /** Method name → implementation, as the host passed it. */
  readonly impl: Readonly<Record<string, unknown>>;
  readonly options: MountOptions;
  readonly revisions: RevisionHandle;
}

/** One registered target. */
export interface TargetEntry {
  readonly target: Target;
  registration: TargetRegistration;
  /** Controller name → mount, in mount order. */
  readonly mounts: Map<string, Mount>;
  /** Channel id → the source provided for it here, in provision order. */
  readonly channels: Map<string, ProvidedChannel>;
}

const SESSION: Target = { scope: 'session' };

function newEntry(target: Target, registration: TargetRegistration): TargetEntry {
  return { target, registration, mounts: new Map(), channels: new Map() };
}

/** The targets of one host, and every controller it declared. */
export class TargetRegistry {
  private readonly entries = new Map<string, TargetEntry>();
  private readonly declarations = new Map<string, ControllerDeclaration>();
  private readonly unregistered = new Set<(entry: TargetEntry) => void>();

  constructor(
    private readonly revisions: RevisionStore,
    private readonly sessionRegistration: TargetRegistration,
  ) {
    this.entries.set('session', newEntry(SESSION, sessionRegistration));
  }

  /** Runs `listener` synchronously each time a target unregisters, after its mounts are gone. */
  onUnregister(listener: (entry: TargetEntry) => void): void {
    this.unregistered.add(listener);
  }

  /** Adds a controller to the installed vocabulary; a different one with the same name is refused. */
  declare(declaration: ControllerDeclaration): void {
    const known = this.declarations.get(declaration.name);
    if (known && known !== declaration) {
      throw new Error(`Another controller named "${declaration.name}" is already declared.`);
    }
    this.declarations.set(declaration.name, declaration);
  }

  /** Every declared controller, in declaration order. */
  declared(): ControllerDeclaration[] {
    return [...this.declarations.values()];
  }

  /** A declared controller by name. */
  controller(name: string): ControllerDeclaration | undefined {
    return this.declarations.get(name);
  }

  /** A registered target's entry. */
  get(target: Target): TargetEntry | undefined {
    return this.entries.get(targetKey(target));
  }

  /** Every registered target, the session first, then in registration order. */
  all(): TargetEntry[] {
    return [...this.entries.values()];
  }

  /**
   * Registers a chart or widget; registering the session target replaces its
   * label, state and surface policy.
   */
  register(target: Target, registration: TargetRegistration): TargetHandle {
    const key = targetKey(target);
    if (target.scope === 'session' && registration.render) {
      throw new Error('The session target has no rendered root; register render sources on charts and widgets.');
    }
    const existing = this.entries.get(key);
    if (target.scope === 'session' && existing) {
      existing.registration = registration;
    } else if (existing) {
      throw new Error(`Target ${key} is already registered; unregister it first.`);
    } else {
      this.entries.set(key, newEntry({ ...target }, registration));
    }
    const entry = this.entries.get(key)!;
    let done = false;
    const unregister = (): void => {
      if (done) return;
      done = true;
      this.unregister(entry);
    };
    return { target: entry.target, unregister };
  }

  private unregister(entry: TargetEntry): void {
    const key = targetKey(entry.target);
    if (this.entries.get(key) !== entry) return;
    entry.mounts.clear();
    if (entry.target.scope === 'session') entry.registration = this.sessionRegistration;
    else this.entries.delete(key);
    for (const listener of this.unregistered) listener(entry);
  }

  /** Mounts a controller on a registered target whose scope it supports. */
  mount(target: Target, declaration: ControllerDeclaration, impl: object, options: MountOptions): MountedController {
    const entry = this.get(target);
    const key = targetKey(target);
    if (!entry) throw new Error(`Target ${key} is not registered; call registerTarget first.`);
    if (!declaration.targetScopes.includes(target.scope)) {
      throw new Error(`Controller ${declaration.name} cannot be mounted on a ${target.scope} target.`);
    }
    if (entry.mounts.has(declaration.name)) {
      throw new Error(`Controller ${declaration.name} is already mounted on ${key}.`);
    }
    this.declare(declaration);
    const revisions = this.revisions.handle(entry.target, declaration);
    const mount: Mount = { declaration, impl: impl as Record<string, unknown>, options, revisions };
    entry.mounts.set(declaration.name, mount);
    return {
      revisions,
      unmount: () => {
        if (entry.mounts.get(declaration.name) === mount) entry.mounts.delete(declaration.name);
      },
    };
  }
}
