#!/usr/bin/env node
/**
 * The `tradescript-mcp` executable (SPEC §11). stdout belongs to MCP in stdio
 * mode: everything else goes to stderr.
 */
import { main } from './cli/main.js';

let stopping = false;
const code = await main(process.argv.slice(2), {
  env: process.env,
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  onServing: (stop) => {
    const onSignal = () => {
      // A second signal while stopping exits at once.
      if (stopping) process.exit(130);
      stopping = true;
      void stop();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  },
});
// Output reaches a pipe asynchronously: let it drain, then exit so stdin or a
// lingering socket cannot keep a finished command alive.
const drained = (stream: NodeJS.WriteStream) => new Promise<void>((resolve) => stream.write('', () => resolve()));
await Promise.all([drained(process.stdout), drained(process.stderr)]);
process.exit(code);
