/**
 * The tenant of the request being served (SPEC §14). A cluster node runs each
 * `/mcp` request inside {@link runAsPrincipal}; the cluster's `HubPort` reads
 * {@link currentPrincipal} at each call, so the MCP front needs no change and
 * a call made outside any request sees nothing.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const storage = new AsyncLocalStorage<string>();

/** Runs `fn` (and everything it starts) on behalf of `principal`. */
export function runAsPrincipal<T>(principal: string, fn: () => T): T {
  return storage.run(principal, fn);
}

/** The principal of the request being served, or null outside one. */
export function currentPrincipal(): string | null {
  return storage.getStore() ?? null;
}
