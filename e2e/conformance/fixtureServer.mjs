#!/usr/bin/env node
/**
 * The conformance fixture server (test only): the built server (`dist/`) with
 * the suite's fixed test tools next to the product's (`fixtureTools.mjs`).
 * Takes the CLI's own arguments, e.g. `serve --http 127.0.0.1:0 --home DIR`,
 * and prints the same ready line.
 */
import { parseCommand, startServer } from '../../dist/node/server/index.js';
import { conformanceFixture } from './fixtureTools.mjs';

const command = parseCommand(process.argv.slice(2), process.env);
if (command.kind !== 'serve') throw new Error('fixtureServer: give it a serve command');
const running = await startServer(command.config, {
  mcp: command.mcp,
  bind: command.bind,
  demo: command.demo,
  extendMcp: conformanceFixture,
});
process.stderr.write(`tradescript-mcp ready ${JSON.stringify(running.urls)}\n`);
const stop = () => void running.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
