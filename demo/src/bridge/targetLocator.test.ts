import { describe, expect, it } from 'vitest';
import type { ChartSlot } from '../chart/chartSlot.js';
import { toBridgeStatus } from './extensionDock.js';
import { targetLocator } from './targetLocator.js';

describe('extension mode', () => {
  const surface = { id: 'btc-surface' } as unknown as HTMLElement;
  const ticket = { id: 'ticket-panel' } as unknown as Element;
  const open = { pane: { surface } } as unknown as ChartSlot;
  const closed = { pane: null } as unknown as ChartSlot;
  const locate = targetLocator({
    charts: new Map([
      ['btc-main', open],
      ['eth-alt', closed],
    ]),
    widgets: new Map([['order-ticket', ticket]]),
  });

  it('locates an open chart’s drawing surface and a widget’s panel; nothing for the session, a closed chart or an unknown id', () => {
    expect(locate({ scope: 'chart', chartId: 'btc-main' })).toBe(surface);
    expect(locate({ scope: 'widget', widgetId: 'order-ticket' })).toBe(ticket);
    expect(locate({ scope: 'chart', chartId: 'eth-alt' })).toBeNull();
    expect(locate({ scope: 'chart', chartId: 'nope' })).toBeNull();
    expect(locate({ scope: 'widget', widgetId: 'constructor' })).toBeNull();
    expect(locate({ scope: 'session' })).toBeNull();
  });

  it('reports the link’s status in the bridge status shape, without `linked`', () => {
    const attachments = [{ attachmentId: 'a1', clientName: 'c', transport: 'http' }] as never;
    expect(toBridgeStatus({ state: 'paired', sessionId: 's_1', attachments, message: null, linked: true })).toEqual({
      state: 'paired',
      sessionId: 's_1',
      attachments,
      message: null,
    });
  });
});
