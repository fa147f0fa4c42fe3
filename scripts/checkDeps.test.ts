/**
 * Issue 12: `scripts/checkDeps.mjs` holds each folder of src/ to its line of
 * `src/DEPS.list`. Run as `npm run lint` runs it, on the real tree and on small
 * trees written here, each with one import the list does not allow.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('./checkDeps.mjs', import.meta.url));
const LIST = ['protocol: protocol/** zod/mini', 'sdk: protocol/** sdk/**', 'server: protocol/** server/** node:*'];
const trees: string[] = [];

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'checkdeps-'));
  trees.push(dir);
  for (const [file, text] of Object.entries({ 'DEPS.list': LIST.join('\n'), ...files })) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
}

function check(args: string[]): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [script, ...args], { encoding: 'utf8' });
  return { status: run.status, output: run.stdout + run.stderr };
}

const clean = {
  'protocol/errors.ts': "import { z } from 'zod/mini';\nexport const E = z.string();\n",
  'sdk/host.ts': "import { E } from '../protocol/errors.js';\nexport const h = E;\n",
  'server/log.ts': "import { EOL } from 'node:os';\nexport const eol = EOL;\n",
  'server/testing/fakeLog.ts': "import { eol } from '../log.js';\nexport const fake = eol;\n",
  'server/log.test.ts': "import { fake } from './testing/fakeLog.js';\nexport const t = fake;\n",
};

afterEach(() => {
  for (const dir of trees.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('issue 12 what each folder may import: src/DEPS.list, checked by npm run lint', () => {
  it('the real src/ follows its list', () => {
    const run = check([]);
    expect(run.output).toMatch(/checkDeps: \d+ files follow src\/DEPS.list/);
    expect(run.status).toBe(0);
  });

  it('a tree that follows its list passes; tests may import test support', () => {
    expect(check(['--src', tree(clean)]).status).toBe(0);
  });

  it.each([
    [
      'the protocol importing the server',
      'protocol/errors.ts',
      "import '../server/log.js';\n",
      /protocol\/errors.ts: \.\.\/server\/log.js/,
    ],
    [
      'the protocol importing a Node built-in',
      'protocol/errors.ts',
      "import 'node:fs';\n",
      /protocol\/errors.ts: node:fs/,
    ],
    [
      'the SDK importing the server',
      'sdk/host.ts',
      "import '../server/log.js';\n",
      /sdk\/host.ts: \.\.\/server\/log.js/,
    ],
    ['product code importing test support', 'server/log.ts', "import './testing/fakeLog.js';\n", /is test support/],
    ['a folder with no line', 'element/view.ts', "import '../sdk/host.js';\n", /element has no line/],
  ])('%s fails, naming the file and the import', (_what, file, text, message) => {
    const files: Record<string, string> = { ...clean };
    files[file] = (files[file] ?? '') + text;
    const run = check(['--src', tree(files)]);
    expect(run.status).toBe(1);
    expect(run.output).toMatch(message);
  });
});
