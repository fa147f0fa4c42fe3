/**
 * The code of `docs/embedding.md`, so a test compiles and runs every block and
 * the guide cannot rot. A fence names its language and, for code that becomes
 * a file, the file: ```` ```ts host.ts ````. Blocks naming the same file are
 * concatenated in order. `sh` blocks are commands.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './paths.js';

/** One fenced code block. */
export interface GuideBlock {
  lang: string;
  /** The file it belongs to, or null (commands). */
  file: string | null;
  code: string;
  /** 1-based line of its opening fence, for messages. */
  line: number;
}

/** The guide's path. */
export const GUIDE = join(repoRoot, 'docs/embedding.md');

/** The relay address the guide's code uses; a test puts its own in. */
export const GUIDE_RELAY_URL = 'ws://127.0.0.1:7391/relay';

/** Every fenced block of a Markdown text, in order. */
export function guideBlocks(markdown = readFileSync(GUIDE, 'utf8')): GuideBlock[] {
  const blocks: GuideBlock[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w+)(?:\s+(\S+))?\s*$/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i += 1; i < lines.length && lines[i] !== '```'; i++) body.push(lines[i]!);
    blocks.push({ lang: open[1]!, file: open[2] ?? null, code: `${body.join('\n')}\n`, line: start + 1 });
  }
  return blocks;
}

/** The guide's files: each file's blocks joined in order, the relay address replaced. */
export function guideFiles(blocks: readonly GuideBlock[], relayUrl: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const block of blocks) {
    if (block.file === null) continue;
    const code = block.code.replaceAll(GUIDE_RELAY_URL, relayUrl);
    files.set(block.file, `${files.get(block.file) ?? ''}${files.has(block.file) ? '\n' : ''}${code}`);
  }
  return files;
}

/** The commands of the `sh` blocks, one per line. */
export function guideCommands(blocks: readonly GuideBlock[]): string[] {
  return blocks
    .filter((block) => block.lang === 'sh')
    .flatMap((block) => block.code.split('\n'))
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}
