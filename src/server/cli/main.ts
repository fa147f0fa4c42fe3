/**
 * The CLI (SPEC §11): parses the command line, runs the command, and returns
 * the exit code (2 for usage errors, 1 for failures). A server command writes
 * one ready line to stderr and runs until SIGINT, SIGTERM or (stdio) stdin ends.
 */
import type { Readable, Writable } from 'node:stream';
import { packageVersion } from '../http/demo/packageRoot.js';
import type { CliOutput } from './adminClient.js';
import { parseCommand, UsageError, type Command } from './args.js';
import { USAGE } from './usage.js';

/** The prefix of the ready line scripts and tests wait for. */
export const READY_PREFIX = 'tradescript-mcp ready ';

/** The prefix of the plain line for people that follows the ready line (SPEC §11). */
export const PAIR_LINE_PREFIX = 'Pair a terminal: ';

/** `Pair a terminal: <pairUrl>`, or, with no demo to link to, how to get a code. */
export function pairLine(pairUrl: string | undefined): string {
  return `${PAIR_LINE_PREFIX}${pairUrl ?? 'run `npx tradescript-mcp pair` for a single-use code'}`;
}

/** Where the CLI reads and writes; the defaults are the process's own. */
export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdin: Readable;
  /** Only the MCP channel writes here in stdio mode. */
  stdout: Writable;
  stderr: Writable;
  /** Called with a stop function once a server runs (the bin wires signals to it). */
  onServing?: (stop: () => Promise<void>) => void;
}

function defaultIo(): CliIo {
  return { env: process.env, stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };
}

/** Runs the CLI with `argv` (without node and the script); resolves with the exit code. */
export async function main(argv: readonly string[], io: CliIo = defaultIo()): Promise<number> {
  const output: CliOutput = { out: (l) => void io.stdout.write(`${l}\n`), err: (l) => void io.stderr.write(`${l}\n`) };
  let command: Command;
  try {
    command = parseCommand(argv, io.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    output.err(`tradescript-mcp: ${error.message}\nRun \`tradescript-mcp --help\` for usage.`);
    return 2;
  }
  try {
    return await run(command, io, output);
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    output.err(`tradescript-mcp: ${error.message}`);
    return 1;
  }
}

async function run(command: Command, io: CliIo, output: CliOutput): Promise<number> {
  switch (command.kind) {
    case 'help':
      io.stdout.write(USAGE);
      return 0;
    case 'version':
      output.out(packageVersion());
      return 0;
    case 'pair':
      await (await import('./adminClient.js')).pairCommand(command.home, command.grant, command.json, output);
      return 0;
    case 'status':
      await (await import('./adminClient.js')).statusCommand(command.home, command.json, output);
      return 0;
    case 'sessions':
      await (await import('./adminClient.js')).sessionsCommand(command.home, command.revoke, command.json, output);
      return 0;
    case 'serve':
      return serve(command, io);
  }
}

async function serve(command: Extract<Command, { kind: 'serve' }>, io: CliIo): Promise<number> {
  if (command.cluster) return serveCluster(command, command.cluster, io);
  // Loaded only for server commands, so `status` and `pair` stay light.
  const { ProbeEnded, startServer } = await import('../process/startServer.js');
  let running;
  try {
    running = await startServer(command.config, {
      mcp: command.mcp,
      bind: command.bind,
      demo: command.demo,
      stdin: io.stdin,
      stdout: io.stdout,
    });
  } catch (error) {
    // A client's version probe: answered, and gone before this process needed the hub.
    if (error instanceof ProbeEnded) return 0;
    throw error;
  }
  const tradingEnabled = command.config.adapter.maxAccess === 'trade';
  io.stderr.write(`${READY_PREFIX}${JSON.stringify({ ...running.urls, tradingEnabled })}\n`);
  io.stderr.write(`${pairLine(running.urls.pairUrl)}\n`);
  io.onServing?.(() => running.close());
  const failed = await running.mcpReady.then(
    () => false,
    (error: unknown) => {
      io.stderr.write(
        `tradescript-mcp: cannot start MCP: ${error instanceof Error ? error.message : 'unknown error'}\n`,
      );
      return true;
    },
  );
  await running.closed;
  const failure = running.failure();
  if (failure) io.stderr.write(`tradescript-mcp: ${failure.message}\n`);
  return failed || failure ? 1 : 0;
}

/** One cluster node (SPEC §14); loaded, with the Redis client, only with --cluster. */
async function serveCluster(
  command: Extract<Command, { kind: 'serve' }>,
  cluster: NonNullable<Extract<Command, { kind: 'serve' }>['cluster']>,
  io: CliIo,
): Promise<number> {
  const { startClusterNode } = await import('../cluster/clusterNode.js');
  const node = await startClusterNode(command.config, { bind: command.bind, cluster });
  const tradingEnabled = command.config.adapter.maxAccess === 'trade';
  io.stderr.write(`${READY_PREFIX}${JSON.stringify({ ...node.urls, tradingEnabled })}\n`);
  io.onServing?.(() => node.close());
  await node.mcpReady.catch(() => undefined);
  await node.closed;
  return 0;
}
