import { describe, expect, it } from 'vitest';
import { composeStatus } from './composeStatus.js';

const session = { sessionId: 's1', open: true, attachments: [], message: null };

describe('SPEC §2 the page’s status', () => {
  it('is paired only when the connection is welcomed and the session is open', () => {
    expect(composeStatus({ state: 'paired', message: null }, session).state).toBe('paired');
    expect(composeStatus({ state: 'paired', message: null }, { ...session, open: false }).state).toBe('connecting');
  });

  it('keeps the session id while disconnected, and prefers the connection’s message', () => {
    const status = composeStatus(
      { state: 'disconnected', message: 'reconnecting' },
      { ...session, open: false, message: 'refused' },
    );
    expect(status).toEqual({ state: 'disconnected', sessionId: 's1', attachments: [], message: 'reconnecting' });
    expect(
      composeStatus({ state: 'paired', message: null }, { ...session, open: false, message: 'refused' }).message,
    ).toBe('refused');
  });
});
