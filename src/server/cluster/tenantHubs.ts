/**
 * One local {@link Hub} per principal on a node (SPEC §14): the sockets,
 * sessions and attachments of a tenant never share a hub with another's, so
 * a tab's attachment list, "detach all" and every routing table are that
 * tenant's alone by construction. A tenant's hub is made at its first socket
 * or attachment on this node and dropped when it holds neither.
 */
import { Hub, type HubOptions } from '../hub/hub.js';

/** What a node does when it makes or drops a tenant's hub. */
export interface TenantHooks {
  created(principal: string, hub: Hub): void;
  dropped(principal: string, hub: Hub): void;
}

/** The tenants' hubs of one node. */
export class TenantHubs {
  private readonly hubs = new Map<string, Hub>();

  constructor(
    private readonly options: Omit<HubOptions, 'logger'> & { logger: HubOptions['logger'] },
    private readonly hooks: TenantHooks,
  ) {}

  /** The principal's hub, made when it has none here. */
  get(principal: string): Hub {
    let hub = this.hubs.get(principal);
    if (!hub) {
      hub = new Hub({ ...this.options, logger: this.options.logger.child(principal) });
      this.hubs.set(principal, hub);
      this.hooks.created(principal, hub);
    }
    return hub;
  }

  /** The principal's hub when it has one here. */
  peek(principal: string): Hub | undefined {
    return this.hubs.get(principal);
  }

  /** Every tenant's hub here. */
  entries(): [string, Hub][] {
    return [...this.hubs.entries()];
  }

  /** Drops the hubs with no socket, session or attachment of their own (`keep` says which attachments are). */
  prune(keep: (principal: string) => boolean): void {
    for (const [principal, hub] of this.hubs) {
      const status = hub.status();
      if (status.sockets > 0 || status.sessions > 0 || status.requestsInFlight > 0 || keep(principal)) continue;
      this.hubs.delete(principal);
      hub.close();
      this.hooks.dropped(principal, hub);
    }
  }

  /** Closes every hub (sockets close with 4500; requests in flight resolve as lost). */
  close(): void {
    for (const hub of this.hubs.values()) hub.close();
  }
}
