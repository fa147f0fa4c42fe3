/**
 * `$TRADESCRIPT_MCP_HOME/hub.json` (mode 0600): where the running hub is, the
 * admin token the CLI needs to ask it things, and the hub link a later
 * server process joins instead of binding the relay (SPEC §9). A hub that
 * takes over after the last one exited reads the relay port and origins here.
 */
import { z } from 'zod';
import { readJsonFile, removeFile } from '../pairing/secureFile.js';
import { hubFilePath } from './hubFilePath.js';

export { hubFilePath, writeHubFile } from './hubFilePath.js';

/** The hub file's contents. */
export const HubFileSchema = z
  .object({
    version: z.literal(1),
    pid: z.number().int(),
    serverVersion: z.string(),
    startedAt: z.string(),
    adminUrl: z.string(),
    adminToken: z.string().min(16),
    relayUrl: z.string(),
    mcpUrl: z.string().optional(),
    demoUrl: z.string().optional(),
    /** `ws://HOST:PORT/front`: where other server processes link to this hub. */
    frontUrl: z.string().optional(),
    frontToken: z.string().min(16).optional(),
    /** Origins the relay admits beyond the defaults, kept by a hub that takes over. */
    relayOrigins: z.array(z.string().max(256)).max(256).optional(),
  })
  .strict();
/** The hub file's contents. */
export type HubFile = z.infer<typeof HubFileSchema>;

/** Reads and validates the hub file; null when missing or not ours. */
export function readHubFile(home: string): HubFile | null {
  const parsed = HubFileSchema.safeParse(readJsonFile(hubFilePath(home)));
  return parsed.success ? parsed.data : null;
}

/**
 * Removes the hub file if it is still this hub's: the same admin token when
 * given (a process that took over may share nothing else with it), else the same pid.
 */
export function removeHubFile(home: string, adminToken?: string): void {
  const file = readHubFile(home);
  if (!file) return;
  if (adminToken !== undefined ? file.adminToken === adminToken : file.pid === process.pid)
    removeFile(hubFilePath(home));
}
