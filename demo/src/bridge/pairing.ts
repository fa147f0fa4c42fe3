/**
 * The relay address our demo server publishes on the page's own origin (the
 * `<tradescript-bridge>` element reads the pairing code from the address).
 */
import { z } from 'zod';

/** The command that prints a fresh pairing link. */
export const PAIR_COMMAND = 'npx tradescript-mcp pair';

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
