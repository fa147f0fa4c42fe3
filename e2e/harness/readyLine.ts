/**
 * The CLI's automation contract (SPEC §11): when ready it writes one stderr line,
 * `tradescript-mcp ready ` followed by JSON with `mcpUrl` (HTTP mode), `relayUrl`,
 * and, when the demo is served, `demoUrl` and `pairUrl`.
 */
import { z } from 'zod';
import type { LineLog } from './lineLog.js';

/** The prefix of the ready line. */
export const READY_PREFIX = 'tradescript-mcp ready ';

/** The ready line's JSON. Further keys are allowed. */
export const ReadyInfoSchema = z.looseObject({
  mcpUrl: z.url().optional(),
  relayUrl: z.url(),
  demoUrl: z.url().optional(),
  pairUrl: z.url().optional(),
  /** Whether the server was started with `--enable-trading`. */
  tradingEnabled: z.boolean().optional(),
});
/** The ready line's JSON. */
export type ReadyInfo = z.infer<typeof ReadyInfoSchema>;

/** Parses one ready line; throws naming what is wrong with it. */
export function parseReadyLine(line: string): ReadyInfo {
  if (!line.startsWith(READY_PREFIX)) throw new Error(`not a ready line: ${line.slice(0, 80)}`);
  let json: unknown;
  try {
    json = JSON.parse(line.slice(READY_PREFIX.length));
  } catch {
    throw new Error('SPEC §11: the ready line must be the prefix followed by JSON');
  }
  const parsed = ReadyInfoSchema.safeParse(json);
  if (!parsed.success) throw new Error(`SPEC §11: unexpected ready line JSON: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/**
 * Waits for the ready line on a captured stderr. On timeout or an early end the
 * error carries the last stderr lines, which usually say why.
 */
export async function waitForReady(stderr: LineLog, timeoutMs: number): Promise<ReadyInfo> {
  let line: string;
  try {
    line = await stderr.waitFor((l) => l.startsWith(READY_PREFIX), timeoutMs);
  } catch (error) {
    const tail = stderr.lines().slice(-20).join('\n');
    throw new Error(
      `tradescript-mcp did not become ready: ${(error as Error).message}\n--- stderr (tail) ---\n${tail}`,
    );
  }
  return parseReadyLine(line);
}

/** The plain line for people that follows the ready line: `Pair a terminal: <pairUrl>` (SPEC §11). */
export const PAIR_LINE_PREFIX = 'Pair a terminal: ';

/**
 * The log lines of a captured stderr: all but the ready line and the plain
 * pairing line after it, which carry the pairing link by contract.
 */
export function logLines(lines: readonly string[]): string {
  return lines.filter((line) => !line.startsWith(READY_PREFIX) && !line.startsWith(PAIR_LINE_PREFIX)).join('\n');
}
