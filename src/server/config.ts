/**
 * The startup configuration of one server process (SPEC §5, §6, §9, §11).
 */
import type { AdapterMaximum, Grant, Limits, ToolName } from '../protocol/index.js';
import type { LogLevel } from './log.js';

/** Everything the command line decides for one process. */
export interface ServerConfig {
  /** What this MCP front allows: trade only with --enable-trading, narrowed by --allow-controls. */
  adapter: AdapterMaximum;
  /** --tool-allowlist; null when every tool is allowed. */
  toolAllowlist: ToolName[] | null;
  /** Limits after --limit lowering. */
  limits: Limits;
  /** Extra origins allowed to open the relay (--allowed-origin). */
  allowedOrigins: string[];
  /** --token-file contents, required for a non-loopback bind. */
  bearerToken: string | null;
  /** Where credentials and the hub's address live ($TRADESCRIPT_MCP_HOME). */
  home: string;
  logLevel: LogLevel;
  /** The grant a pairing link proposes (--grant on pair and demo). */
  pairGrant: Grant;
}
