import { describe, expect, it } from 'vitest';
import { pairEffect, tradingLine } from './adminClient.js';

describe('SPEC §9 §11 `tradescript-mcp pair` says what its link will do', () => {
  it('names the grant for a new tab and for one already paired (asked, never applied silently)', () => {
    const text = pairEffect({ grant: 'write', tradingEnabled: false }).join(' ');
    expect(text).toContain('A tab not paired yet pairs with MCP access "write"');
    expect(text).toContain('A tab already paired shows the person a request to switch its access to "write"');
    expect(text).toContain('applied only if they accept');
    expect(text).not.toContain('--enable-trading');
  });

  it('a trade link on a server without --enable-trading says trading stays off', () => {
    expect(pairEffect({ grant: 'trade', tradingEnabled: false }).at(-1)).toBe(`Trading is ${tradingLine(false)}.`);
    expect(tradingLine(false)).toContain('--enable-trading');
    expect(pairEffect({ grant: 'trade', tradingEnabled: true }).join(' ')).not.toContain('refused');
  });
});
