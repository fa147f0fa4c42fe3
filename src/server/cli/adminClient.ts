/**
 * `pair`, `status` and `sessions` (SPEC §11): they read `hub.json` and ask the
 * running server's admin API. Page-supplied text (titles) is stripped of
 * control characters before it reaches a terminal.
 */
import type { SessionSummary } from '../../protocol/index.js';
import type { PairAnswer, StatusAnswer } from '../http/adminApi.js';
import { hubFilePath, readHubFile } from '../http/hubFile.js';

/** Where command output goes. */
export interface CliOutput {
  out(line: string): void;
  err(line: string): void;
}

/** A command that could not reach the server: exit code 1. */
export class CommandFailed extends Error {}

async function ask<T>(home: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const hub = readHubFile(home);
  if (!hub) {
    throw new CommandFailed(
      `No running tradescript-mcp found (no ${hubFilePath(home)}). Start one with \`npx tradescript-mcp demo\` or \`serve\`.`,
    );
  }
  let response: Response;
  try {
    response = await fetch(`${hub.adminUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${hub.adminToken}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(5_000),
    });
  } catch {
    throw new CommandFailed(`The server in ${hubFilePath(home)} (pid ${hub.pid}) does not answer; it may have exited.`);
  }
  const json = (await response.json().catch(() => ({}))) as T & { error?: string };
  if (!response.ok) throw new CommandFailed(json.error ?? `The server answered ${response.status}.`);
  return json;
}

/** Strips control characters (terminal escapes) from page-supplied text. */
export function printable(text: string, max = 60): string {
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, ' ');
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/** `trading: …` as `status` and `pair` say it. */
export function tradingLine(enabled: boolean): string {
  return enabled
    ? 'enabled (--enable-trading): a tab granting trade lets MCP clients place orders'
    : 'off: trade-class controls are refused whatever a tab grants (start the server with --enable-trading to allow them)';
}

/** What a pairing link (or code) will do, for the person about to open it (SPEC §9). */
export function pairEffect(answer: Pick<PairAnswer, 'grant' | 'tradingEnabled'>): string[] {
  const lines = [
    `A tab not paired yet pairs with MCP access "${answer.grant}". A tab already paired shows the person a`,
    `request to switch its access to "${answer.grant}", applied only if they accept. Single use, expires in 2 minutes.`,
  ];
  if (answer.grant === 'trade' && !answer.tradingEnabled) lines.push(`Trading is ${tradingLine(false)}.`);
  return lines;
}

/** `tradescript-mcp pair`: prints the pairing link (or the code when no demo is served) and what it will do. */
export async function pairCommand(home: string, grant: string | null, json: boolean, io: CliOutput): Promise<void> {
  const answer = await ask<PairAnswer>(home, 'POST', '/pair', grant === null ? {} : { grant });
  if (json) return io.out(JSON.stringify(answer));
  io.err(
    answer.pairUrl
      ? "Open this link in the terminal's browser to pair it:"
      : "Enter this code in the terminal's TradeScript panel (or open the terminal at …#pair=CODE):",
  );
  io.out(answer.pairUrl ?? answer.code);
  for (const line of pairEffect(answer)) io.err(line);
}

function sessionLine(s: SessionSummary): string {
  const state = s.connected ? 'connected' : 'away';
  return `  ${s.sessionId}  ${state.padEnd(9)}  ${s.hostKind.padEnd(9)}  ${printable(s.origin, 40)}  ${printable(s.title)}`;
}

/** `tradescript-mcp status`. */
export async function statusCommand(home: string, json: boolean, io: CliOutput): Promise<void> {
  const status = await ask<StatusAnswer>(home, 'GET', '/status');
  if (json) return io.out(JSON.stringify(status));
  const { urls, hub } = status;
  io.out(`tradescript-mcp ${status.version} (pid ${status.pid})`);
  if (urls.mcpUrl) io.out(`  MCP:    ${urls.mcpUrl}`);
  else io.out('  MCP:    stdio');
  io.out(`  relay:  ${urls.relayUrl}`);
  if (urls.demoUrl) io.out(`  demo:   ${urls.demoUrl}`);
  io.out(`  trading: ${tradingLine(status.tradingEnabled)}`);
  io.out(
    `  sessions: ${hub.sessions} (${hub.connectedSessions} connected) · attachments: ${hub.attachments} · paired hosts: ${status.hosts.length}`,
  );
  for (const s of status.sessions) io.out(sessionLine(s));
  for (const h of status.hosts)
    io.out(`  host ${h.hostId}  ${h.hostKind.padEnd(9)}  ${printable(h.origin, 40)}  paired ${h.pairedAt}`);
}

/** `tradescript-mcp sessions [list|revoke ID]`. */
export async function sessionsCommand(
  home: string,
  revoke: string | null,
  json: boolean,
  io: CliOutput,
): Promise<void> {
  if (revoke !== null) {
    const body = revoke.startsWith('h_') ? { hostId: revoke } : { sessionId: revoke };
    const answer = await ask<{ hostId: string; sessionsClosed: number }>(home, 'POST', '/revoke', body);
    if (json) return io.out(JSON.stringify(answer));
    return io.out(
      `Revoked host ${answer.hostId}: ${answer.sessionsClosed} session(s) closed; its tabs must pair again.`,
    );
  }
  const { sessions } = await ask<{ sessions: SessionSummary[] }>(home, 'GET', '/sessions');
  if (json) return io.out(JSON.stringify({ sessions }));
  if (sessions.length === 0) return io.out('No sessions. Open the terminal and pair it (`npx tradescript-mcp pair`).');
  for (const s of sessions) io.out(sessionLine(s));
}
