/**
 * The two inputs of pairing: the single-use code in the URL fragment and the
 * relay address our demo server publishes on the page's own origin.
 */
import { z } from 'zod';

/** The command that prints a fresh pairing link. */
export const PAIR_COMMAND = 'npx tradescript-mcp pair';

const PairCodeSchema = z.string().regex(/^[A-Za-z0-9_-]{4,128}$/);

/**
 * Reads `#pair=CODE` and removes the fragment from the address and history at
 * once, so the code is never bookmarked, shared or reused by a reload.
 */
export function takePairCode(location: Location, history: History): string | null {
  const fragment = location.hash.startsWith('#') ? location.hash.slice(1) : location.hash;
  const raw = new URLSearchParams(fragment).get('pair');
  if (raw === null) return null;
  history.replaceState(history.state, '', `${location.pathname}${location.search}`);
  const parsed = PairCodeSchema.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

/** `/tradescript-config.json`, served by `tradescript-mcp demo` next to the terminal. */
export const DemoConfigSchema = z.looseObject({
  relayUrl: z.string().regex(/^wss?:\/\/\S+$/, 'relayUrl must be a ws:// or wss:// URL'),
});
/** What the demo server tells the page. */
export type DemoConfig = z.infer<typeof DemoConfigSchema>;

/** The config, or why there is none (for the banner). */
export type ConfigResult = { ok: true; config: DemoConfig } | { ok: false; message: string };

/** Fetches and validates the config from the page's own origin. */
export async function loadConfig(origin: string, fetcher: typeof fetch = fetch): Promise<ConfigResult> {
  const noServer =
    'No TradeScript MCP server serves this page, so the terminal runs unpaired. Start one with `npx tradescript-mcp demo`.';
  let body: unknown;
  try {
    const response = await fetcher(new URL('/tradescript-config.json', origin), { cache: 'no-store' });
    if (!response.ok) return { ok: false, message: noServer };
    body = await response.json();
  } catch {
    return { ok: false, message: noServer };
  }
  const parsed = DemoConfigSchema.safeParse(body);
  if (!parsed.success) {
    return { ok: false, message: 'This server sent an unreadable /tradescript-config.json; update tradescript-mcp.' };
  }
  return { ok: true, config: parsed.data };
}
