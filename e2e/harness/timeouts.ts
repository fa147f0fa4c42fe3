/**
 * Every wait in the harness is bounded by one of these. They are named so a test
 * can see what it waits for, and mutable so a test may change one for itself
 * (restore it afterwards: test files run one at a time but share nothing else).
 */
export const harnessTimeouts = {
  /** From spawning the CLI to its `tradescript-mcp ready ` line. */
  readyMs: 20_000,
  /** MCP `initialize` handshake. */
  connectMs: 20_000,
  /** Graceful stop before SIGKILL. */
  closeMs: 5_000,
  /** Launching Chromium. */
  launchMs: 30_000,
  /** Opening a pair link until the demo reports `paired`. */
  pairMs: 30_000,
  /** A page navigation. */
  navigationMs: 20_000,
};
