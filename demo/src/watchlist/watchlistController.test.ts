import { describe, expect, it } from 'vitest';
import { describeController } from '../../../src/sdk/declare/declare.js';
import { isControlFailure } from '../../../src/sdk/outcomes/failures.js';
import type { ControlContext } from '../../../src/sdk/types.js';
import { MarketSimulator } from '../market/simulator.js';
import { WatchlistModel } from './watchlistModel.js';
import { WATCHLIST_POLICY } from '../terminalHost.js';
import { watchlistController, watchlistControls } from './watchlistController.js';

function setup() {
  let symbols = 0;
  const ctx: ControlContext = {
    target: { scope: 'widget', widgetId: 'watchlist' },
    controlId: 'watchlist.add',
    operationId: 'op-1',
    attachment: { attachmentId: 'a1', namespace: 'ns1', clientName: 'test' },
    signal: new AbortController().signal,
    revisions: { get: () => symbols, bump: () => ++symbols, all: () => ({ symbols }) },
  };
  const market = new MarketSimulator({ seed: 1, now: () => Date.UTC(2026, 0, 5), historyMinutes: 60 });
  const model = new WatchlistModel(['BTCUSDT', 'ETHUSDT']);
  return { ctx, model, controls: watchlistControls(model, market), revisions: () => symbols };
}

describe('watchlist controller', () => {
  it('declares list as read and add/remove as write mutations on the symbols domain', () => {
    const byId = new Map(describeController(watchlistController).map((d) => [d.controlId, d]));
    expect(byId.get('watchlist.list')).toMatchObject({ accessClass: 'read', mutation: false });
    expect(byId.get('watchlist.add')).toMatchObject({
      accessClass: 'write',
      mutation: true,
      revisionDomains: ['symbols'],
    });
    expect(WATCHLIST_POLICY).toEqual({ maxAccess: 'read', detail: 'The watchlist is read-only in this terminal.' });
  });

  it('lists rows with decimal string prices', async () => {
    const { ctx, controls } = setup();
    const { rows } = await controls.list(ctx);
    expect(rows.map((row) => row.symbol)).toEqual(['BTCUSDT', 'ETHUSDT']);
    expect(rows[0]?.last).toMatch(/^\d+\.\d{2}$/);
    expect(rows[0]?.changePercent).toMatch(/^-?\d+\.\d{2}$/);
  });

  it('adds a quoted symbol once and refuses an unknown one with nothing changed', async () => {
    const { ctx, model, controls, revisions } = setup();
    expect(await controls.add(ctx, 'SOLUSDT')).toEqual({ symbols: ['BTCUSDT', 'ETHUSDT', 'SOLUSDT'], changed: true });
    expect((await controls.add(ctx, 'SOLUSDT')).changed).toBe(false);
    let kind = '';
    try {
      await controls.add(ctx, 'NOPE');
    } catch (error) {
      if (isControlFailure(error)) kind = error.kind;
    }
    expect(kind).toBe('definite-failure');
    expect(model.symbols()).toHaveLength(3);
    expect(await controls.remove(ctx, 'BTCUSDT')).toEqual({ symbols: ['ETHUSDT', 'SOLUSDT'], changed: true });
    expect(revisions()).toBe(2);
  });
});
