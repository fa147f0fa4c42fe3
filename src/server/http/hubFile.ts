/**
 * `$TRADESCRIPT_MCP_HOME/hub.json` (mode 0600): where the running server is and
 * the admin token the CLI needs to ask it things.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { readJsonFile, removeFile, writeSecureFile } from '../pairing/secureFile.js';

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
  })
  .strict();
/** The hub file's contents. */
export type HubFile = z.infer<typeof HubFileSchema>;

/** Where the hub file lives. */
export function hubFilePath(home: string): string {
  return join(home, 'hub.json');
}

/** Writes the hub file (0600). */
export function writeHubFile(home: string, file: HubFile): void {
  writeSecureFile(hubFilePath(home), `${JSON.stringify(file, null, 2)}\n`);
}

/** Reads and validates the hub file; null when missing or not ours. */
export function readHubFile(home: string): HubFile | null {
  const parsed = HubFileSchema.safeParse(readJsonFile(hubFilePath(home)));
  return parsed.success ? parsed.data : null;
}

/** Removes the hub file if it is still this process's. */
export function removeHubFile(home: string, pid: number = process.pid): void {
  if (readHubFile(home)?.pid === pid) removeFile(hubFilePath(home));
}
