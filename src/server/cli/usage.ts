/**
 * The command line's help text (SPEC §11).
 */

/** Printed for `--help` and after a usage error. */
export const USAGE = `Usage: tradescript-mcp <command> [flags]

Commands:
  demo                      MCP on http://127.0.0.1:7391/mcp, relay on ws://127.0.0.1:7391/relay,
                            the demo terminal on http://127.0.0.1:7392/ (add --stdio for MCP over stdio)
  serve --stdio             MCP over stdin/stdout; the relay listens on 127.0.0.1:7391
  serve --http HOST:PORT    MCP over Streamable HTTP on http://HOST:PORT/mcp, relay on the same port
  serve --http HOST:PORT --cluster redis://… --token-file FILE
                            One node of a cluster sharing one Redis (docs/deploy.md): every request
                            carries a bearer token naming its principal; /healthz and /readyz for probes
  pair [--grant G]          Ask the running server for a single-use pairing link
  status                    Show the running server, its sessions and paired hosts
  sessions [list]           List sessions
  sessions revoke ID        Revoke the host of session ID (or host ID h_…): every tab of it must pair again

Several demo/serve processes may share one home: the first owns the relay port, later ones join it
(each with its own flags) and take it over when it exits; paired tabs follow without pairing again.

Flags:
  --enable-trading          Allow trade-class controls (off by default)
  --allow-controls A,B      Narrow trading to these controls (exact ids or controller.*)
  --tool-allowlist A,B      Serve only these tools
  --allowed-origin ORIGIN   Also let this origin open the relay (repeatable; the TradeScript extension always may)
  --token-file FILE         Require "Authorization: Bearer <token>" on /mcp and the relay
                            (with --cluster: a JSON file mapping tokens to principals)
  --public-url URL          With --cluster: the origin a proxy in front of the nodes serves
  --grant read|write|trade  The grant a pairing link proposes (pair, demo; default write)
  --limit NAME=VALUE        Lower a limit (repeatable), e.g. --limit batchCalls=10
  --port PORT               The MCP/relay port (0: ephemeral; with demo, the demo's too)
  --demo-port PORT          The demo's port alone (demo)
  --log-level LEVEL         debug, info, warn, error or silent (default info)
  --home DIR                State directory (default $TRADESCRIPT_MCP_HOME or ~/.tradescript-mcp)
  --json                    Machine-readable output (pair, status, sessions)
  --help, --version
`;
