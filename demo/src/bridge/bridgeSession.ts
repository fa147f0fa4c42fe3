/**
 * Connects the host to the relay once the config is known, and keeps the
 * latest bridge status for the header and the test hooks.
 */
import { connectBridge } from '../../../src/bridge/index.js';
import type { BridgeHandle, BridgeStatus, ConnectOptions } from '../../../src/bridge/types.js';
import type { Grant } from '../../../src/protocol/index.js';
import type { TerminalHost } from '../../../src/sdk/types.js';
import { loadConfig } from './pairing.js';

/** The tab's title as MCP clients see it. */
export const TERMINAL_TITLE = 'TradeScript Demo Terminal';

/** What the page does with bridge events. */
export interface BridgeSessionOptions {
  host: TerminalHost;
  /** From `#pair=CODE`, already removed from the address. */
  pairCode: string | null;
  onStatus: (status: BridgeStatus) => void;
  onGrantProposed: (grant: Grant) => void;
}

/** The page's bridge: its handle once connected, and its last status. */
export class BridgeSession {
  private handle: BridgeHandle | null = null;
  private last: BridgeStatus = { state: 'connecting', sessionId: null, attachments: [], message: null };

  constructor(private readonly options: BridgeSessionOptions) {
    options.onStatus(this.last);
  }

  /** The latest status. */
  status(): BridgeStatus {
    return this.last;
  }

  /** The bridge handle, or null while unconnected. */
  bridge(): BridgeHandle | null {
    return this.handle;
  }

  /** Fetches the config from this origin and connects; without a config the terminal stays unpaired. */
  async start(origin: string): Promise<void> {
    const result = await loadConfig(origin);
    if (!result.ok) {
      const unused = this.options.pairCode ? ' The pairing code in the link was not used.' : '';
      this.report({ state: 'unpaired', sessionId: null, attachments: [], message: `${result.message}${unused}` });
      return;
    }
    const connect: ConnectOptions = {
      relayUrl: result.config.relayUrl,
      title: TERMINAL_TITLE,
      onStatus: (status) => this.report(status),
      onGrantProposed: (grant) => this.options.onGrantProposed(grant),
    };
    if (this.options.pairCode) connect.pairCode = this.options.pairCode;
    this.handle = connectBridge(this.options.host, connect);
  }

  /** Re-sends title, grant, environment and catalog after a local change. */
  updateInfo(): void {
    this.handle?.updateInfo();
  }

  private report(status: BridgeStatus): void {
    this.last = status;
    this.options.onStatus(status);
  }
}
