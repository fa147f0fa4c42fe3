/**
 * Test support: a `fetch` for an MCP client that sends each request to the
 * next of several cluster nodes' `/mcp` in turn (SPEC §13, §14), as a load
 * balancer without sticky routing would; a test may pin the next requests to
 * one node. Not product code.
 */

/** The SDK's `fetch` option type. */
export type RotatingFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** A fetch over several nodes. */
export interface NodeRotation {
  readonly fetch: RotatingFetch;
  /** The node URL each request went to, in order. */
  readonly hits: string[];
  /** Sends the following requests to this node only; null: in turn again. */
  pin(mcpUrl: string | null): void;
}

/** Rotates over `mcpUrls` (each a node's `/mcp` URL), starting with the first. */
export function nodeRotation(mcpUrls: readonly string[], base: RotatingFetch = fetch): NodeRotation {
  if (mcpUrls.length === 0) throw new Error('nodeRotation needs at least one node');
  const hits: string[] = [];
  let next = 0;
  let pinned: string | null = null;
  return {
    hits,
    pin: (mcpUrl) => void (pinned = mcpUrl),
    fetch: (url, init) => {
      const target = pinned ?? (mcpUrls[next++ % mcpUrls.length] as string);
      hits.push(target);
      const asked = new URL(url);
      const to = new URL(target);
      to.search = asked.search;
      return base(to, init);
    },
  };
}
