import { afterEach, describe, expect, test } from 'vitest';
import { SESSIONS_URI, type SessionsDocument } from '../../protocol/index.js';
import { Hub } from '../hub/hub.js';
import { openScriptedTab, testAuthenticator } from '../testing/scriptedTab.js';
import { createLogger } from '../log.js';
import { receiptFor } from '../testing/testHub.js';
import { connectFront, envelopeOf, waitFor, type Harness } from '../testing/testHarness.js';

// The MCP front against the real hub and a scripted tab over an in-memory relay socket.
let harness: Harness<Hub> | undefined;
afterEach(async () => {
  await harness?.close();
  harness?.hub.close();
  harness = undefined;
});

async function connectThroughHub(clientName = 'integration-client') {
  const hub = new Hub({ auth: testAuthenticator(), logger: createLogger('silent'), serverVersion: '0.0.0-test' });
  const tab = await openScriptedTab(hub);
  harness = await connectFront(hub, { clientName });
  return { hub, tab, client: harness.client };
}

describe('front + real hub', () => {
  test('SPEC §2 the attachment appears in tradescript://sessions under the client name', async () => {
    const { tab, client } = await connectThroughHub('Claude Test');
    const read = await client.readResource({ uri: SESSIONS_URI });
    const doc = JSON.parse((read.contents[0] as { text: string }).text) as SessionsDocument;
    expect(doc.sessions.map((s) => s.sessionId)).toEqual([tab.sessionId]);
    expect(doc.sessions[0]?.attachments.map((a) => [a.clientName, a.transport])).toEqual([['Claude Test', 'stdio']]);
  });

  test('SPEC §5 a call reaches the tab with a generated operation id and its receipt comes back', async () => {
    const { tab, client } = await connectThroughHub();
    const pending = client.callTool({
      name: 'tradescript_call',
      arguments: { sessionId: tab.sessionId, target: { scope: 'session' }, controlId: 'chart.setVisibleRange' },
    });
    const frame = await tab.nextRequest();
    expect(frame.op.kind).toBe('call');
    if (frame.op.kind !== 'call') return;
    expect(frame.op.call.callerOperationId).toBe(false);
    expect(frame.op.call.operationId).toMatch(/^gen-/);
    tab.answer(frame.id, receiptFor(frame.op.call));
    const payload = envelopeOf(await pending);
    expect(payload.data?.['operationId']).toBe(frame.op.call.operationId);
    expect(payload.meta).toMatchObject({ sessionId: tab.sessionId, environment: 'paper' });
  });

  test('SPEC §3 a second tab pairing sends resources/list_changed', async () => {
    const { hub, client } = await connectThroughHub();
    let changed = 0;
    client.setNotificationHandler('notifications/resources/list_changed', () => {
      changed += 1;
    });
    await openScriptedTab(hub, { hostId: 'h_second' });
    await waitFor(() => changed > 0, 'list_changed');
  });

  test('SPEC §2 "detach all" in a page ends the client’s use of that host only; another host’s session still answers', async () => {
    const { hub, tab, client } = await connectThroughHub();
    const other = await openScriptedTab(hub, { hostId: 'h_other' });
    let closed = false;
    client.onclose = () => {
      closed = true;
    };
    tab.client.send({ t: 'detach', sessionId: tab.sessionId });
    await tab.client.next('attachment.ended');
    const read = (sessionId: string) =>
      client.callTool({
        name: 'tradescript_call',
        arguments: { sessionId, target: { scope: 'session' }, controlId: 'chart.getVisibleRange' },
      });
    expect(envelopeOf(await read(tab.sessionId)).error).toMatchObject({ code: 'control_unavailable' });
    const pending = read(other.sessionId);
    const frame = await other.nextRequest();
    if (frame.op.kind !== 'call') throw new Error('expected a call');
    other.answer(frame.id, receiptFor(frame.op.call));
    expect(envelopeOf(await pending).error).toBeNull();
    expect(other.client.received.some((f) => f.t === 'attachment.ended')).toBe(false);
    expect(closed).toBe(false);
  });

  test('SPEC §11 a sessionId the server does not know is neither echoed (meta.sessionId null) nor logged', async () => {
    const { client, tab } = await connectThroughHub();
    const unknown = `QZX${'u'.repeat(122)}XZQ`;
    for (const [name, args] of [
      ['tradescript_get_context', { sessionId: unknown, target: { scope: 'session' } }],
      ['tradescript_call', { sessionId: unknown, target: { scope: 'session' }, controlId: 'chart.setVisibleRange' }],
      ['tradescript_subscribe', { action: 'list', sessionId: unknown }],
    ] as const) {
      const result = await client.callTool({ name, arguments: args });
      const payload = envelopeOf(result);
      expect(payload.error?.code).toBe('session_not_found');
      expect(payload.meta.sessionId).toBeNull();
      expect(JSON.stringify(result)).not.toContain('QZX');
    }
    expect(harness!.logs.join('\n')).not.toContain('QZX');
    expect(harness!.logs.join('\n')).toContain('session_not_found');
    // A known session is still named.
    const pending = client.callTool({
      name: 'tradescript_call',
      arguments: { sessionId: tab.sessionId, target: { scope: 'session' }, controlId: 'chart.getVisibleRange' },
    });
    const frame = await tab.nextRequest();
    if (frame.op.kind !== 'call') throw new Error('expected a call');
    tab.answer(frame.id, receiptFor(frame.op.call));
    expect(envelopeOf(await pending).meta.sessionId).toBe(tab.sessionId);
  });
});
