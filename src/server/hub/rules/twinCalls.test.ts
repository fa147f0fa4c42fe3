import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, makeError, relayLimitsOf, type Operation } from '../../../protocol/index.js';
import { createLogger } from '../../log.js';
import { Hub } from '../hub.js';
import type { HubRequestOptions } from '../hubPort.js';
import { openScriptedTab, testAuthenticator } from '../../testing/scriptedTab.js';

const options: HubRequestOptions = {
  adapter: { maxAccess: 'write', allowControls: null },
  limits: relayLimitsOf(DEFAULT_LIMITS),
  deadlineMs: 5_000,
};

function placement(args: unknown[] = [{ quantity: '0.001' }], operationId = 'op-twin'): Operation {
  return {
    kind: 'call',
    call: {
      target: { scope: 'session' },
      controlId: 'chart.setVisibleRange',
      args,
      operationId,
      callerOperationId: true,
    },
  };
}

async function setup() {
  const hub = new Hub({ auth: testAuthenticator(), logger: createLogger('silent'), serverVersion: 't' });
  const tab = await openScriptedTab(hub);
  const a = await hub.attach({ clientName: 'c', transport: 'stdio' });
  const requests = () => tab.client.received.filter((f) => f.t === 'request');
  return { hub, tab, a, requests };
}

const rateLimited = makeError('rate_limited', 'Too many requests; wait, then ask the person.', {
  status_code: 429,
  retry: 'after_user_action',
});

describe('SPEC §5 concurrent twins get the same answer', () => {
  it('SPEC §5 a twin sent while the first runs waits for it and returns its definite refusal (429); only a later reuse makes a new attempt', async () => {
    const { hub, tab, a, requests } = await setup();
    const first = hub.request(a.attachmentId, tab.sessionId, placement(), options);
    const sent = await tab.nextRequest();
    // The twin leaves the client while the first is still unanswered: it is never sent to the page.
    const twin = hub.request(a.attachmentId, tab.sessionId, placement(), options);
    expect(requests()).toHaveLength(1);
    tab.client.send({ t: 'response', id: sent.id, environment: 'paper', outcome: { ok: false, error: rateLimited } });
    const [one, two] = await Promise.all([first, twin]);
    expect(one).toMatchObject({ ok: false, error: { code: 'rate_limited', retry: 'after_user_action' } });
    expect(two).toEqual(one);
    expect(requests()).toHaveLength(1);
    const later = hub.request(a.attachmentId, tab.sessionId, placement(), options);
    const again = await tab.nextRequest();
    expect(again.id).not.toBe(sent.id);
    tab.answer(again.id, { placed: true });
    await expect(later).resolves.toMatchObject({ ok: true });
  });

  it('SPEC §5 only identical requests of one attachment join: other bytes, another attachment or a read each go to the page', async () => {
    const { hub, tab, a, requests } = await setup();
    const b = await hub.attach({ clientName: 'other', transport: 'http' });
    const read: Operation = {
      kind: 'call',
      call: {
        target: { scope: 'session' },
        controlId: 'chart.getVisibleRange',
        args: [],
        operationId: 'op-twin',
        callerOperationId: true,
      },
    };
    const pending = [
      hub.request(a.attachmentId, tab.sessionId, placement(), options),
      hub.request(a.attachmentId, tab.sessionId, placement([{ quantity: '0.003' }]), options),
      hub.request(b.attachmentId, tab.sessionId, placement(), options),
      hub.request(a.attachmentId, tab.sessionId, read, options),
      hub.request(a.attachmentId, tab.sessionId, read, options),
    ];
    for (let i = 0; i < 5; i += 1) await tab.nextRequest();
    expect(requests()).toHaveLength(5);
    for (const r of requests()) if (r.t === 'request') tab.answer(r.id, null);
    await Promise.all(pending);
  });
});
