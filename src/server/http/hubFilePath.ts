/**
 * Where `hub.json` is, and writing it: what a starting hub needs before its
 * ready line. Reading and checking it (`hubFile.ts`) needs its schema, which
 * a process loads only when there is a file to read (SPEC §12).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { writeSecureFile } from '../pairing/secureFile.js';
import type { HubFile } from './hubFile.js';

/** Where the hub file lives. */
export function hubFilePath(home: string): string {
  return join(home, 'hub.json');
}

/** True when a hub file exists (whatever it holds). */
export function hubFileExists(home: string): boolean {
  return existsSync(hubFilePath(home));
}

/** Writes the hub file (0600). */
export function writeHubFile(home: string, file: HubFile): void {
  writeSecureFile(hubFilePath(home), `${JSON.stringify(file, null, 2)}\n`);
}
