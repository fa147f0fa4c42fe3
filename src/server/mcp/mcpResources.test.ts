import { ProtocolError as McpError } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, test } from 'vitest';
import {
  CATALOG_URI,
  makeError,
  MAX_LISTED_SESSIONS,
  SESSION_CONTEXT_TEMPLATE,
  HOW_TO_PAIR,
  SESSIONS_URI,
  sessionContextUri,
} from '../../protocol/index.js';
import { sessionSummary } from '../testing/testHub.js';
import { connectClient, waitFor, type Harness } from '../testing/testHarness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

function textOf(result: { contents: Array<{ text: string } | { blob: string }> }): unknown {
  const item = result.contents[0];
  if (!item || !('text' in item)) throw new Error('expected a text resource');
  return JSON.parse(item.text);
}

describe('resources', () => {
  test('SPEC §3 resources/list shows the catalog, the sessions and one context per paired session', async () => {
    harness = await connectClient();
    harness.hub.sessions = [sessionSummary('s-1'), sessionSummary('s-2')];
    const { resources } = await harness.client.listResources();
    expect(resources.map((r) => r.uri)).toEqual([
      CATALOG_URI,
      SESSIONS_URI,
      sessionContextUri('s-1'),
      sessionContextUri('s-2'),
    ]);
    expect(resources.every((r) => r.mimeType === 'application/json')).toBe(true);
  });

  test('SPEC §3 resources/templates/list shows the session context template', async () => {
    harness = await connectClient();
    const { resourceTemplates } = await harness.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([SESSION_CONTEXT_TEMPLATE]);
  });

  test('SPEC §3 the catalog resource is the hub catalog', async () => {
    harness = await connectClient();
    const result = await harness.client.readResource({ uri: CATALOG_URI });
    expect(textOf(result)).toEqual({
      controls: [],
      channels: [],
      truncated: false,
      total: { controls: 0, channels: 0 },
    });
    expect(harness.hub.requests).toHaveLength(0);
  });

  test('SPEC §3 the sessions resource is bounded with total and truncated', async () => {
    harness = await connectClient();
    harness.hub.sessions = Array.from({ length: MAX_LISTED_SESSIONS + 6 }, (_, i) => sessionSummary(`s-${i}`));
    const doc = textOf(await harness.client.readResource({ uri: SESSIONS_URI })) as Record<string, unknown>;
    expect(doc['total']).toBe(MAX_LISTED_SESSIONS + 6);
    expect(doc['truncated']).toBe(true);
    expect(doc['sessions']).toHaveLength(MAX_LISTED_SESSIONS);
  });

  test('SPEC §3 §11 an empty sessions resource tells the agent how the person pairs a terminal', async () => {
    harness = await connectClient();
    harness.hub.sessions = [];
    const empty = textOf(await harness.client.readResource({ uri: SESSIONS_URI })) as Record<string, unknown>;
    expect(empty).toEqual({ sessions: [], total: 0, truncated: false, howToPair: HOW_TO_PAIR });
    expect(HOW_TO_PAIR).toContain('npx tradescript-mcp pair');
    harness.hub.sessions = [sessionSummary('s-1')];
    const one = textOf(await harness.client.readResource({ uri: SESSIONS_URI })) as Record<string, unknown>;
    expect(one).not.toHaveProperty('howToPair');
  });

  test('SPEC §3 a context resource is the session-target context, read through the hub', async () => {
    harness = await connectClient();
    const context = textOf(await harness.client.readResource({ uri: sessionContextUri('s-1') }));
    expect(context).toMatchObject({ sessionId: 's-1', target: { scope: 'session' }, environment: 'paper' });
    expect(harness.hub.requests[0]).toMatchObject({
      sessionId: 's-1',
      op: { kind: 'context', target: { scope: 'session' } },
    });
  });

  test('SPEC §3 a context of a session that is gone is a JSON-RPC "resource not found" naming the next step', async () => {
    harness = await connectClient();
    harness.hub.responder = () => ({
      ok: false,
      environment: null,
      error: makeError('session_not_found', 'No such session.'),
    });
    const error = await harness.client.readResource({ uri: sessionContextUri('gone') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    // -32602: the 2026-07-28 revision's "resource not found", on both revisions.
    expect((error as McpError).code).toBe(-32602);
    expect((error as McpError).message).toContain(SESSIONS_URI);
    expect((error as McpError).data).toEqual({
      uri: sessionContextUri('gone'),
      code: 'session_not_found',
      retry: 'after_reread',
    });
  });

  test('SPEC §3 an unknown resource URI is a JSON-RPC error', async () => {
    harness = await connectClient();
    const error = await harness.client.readResource({ uri: 'tradescript://nope' }).catch((e: unknown) => e);
    expect((error as McpError).code).toBe(-32602);
  });
});

describe('resource notifications', () => {
  test('SPEC §3 a session pairing or closing sends notifications/resources/list_changed', async () => {
    harness = await connectClient();
    let changed = 0;
    harness.client.setNotificationHandler('notifications/resources/list_changed', () => {
      changed += 1;
    });
    harness.hub.emit('sessionsChanged');
    await waitFor(() => changed === 1, 'list_changed');
  });

  test('SPEC §3 subscribers of tradescript://sessions get resources/updated when a summary changes', async () => {
    harness = await connectClient();
    const updated: string[] = [];
    harness.client.setNotificationHandler('notifications/resources/updated', (n) => {
      updated.push(n.params.uri);
    });
    harness.hub.emit('sessionUpdated', 's-1');
    await harness.client.subscribeResource({ uri: SESSIONS_URI });
    harness.hub.emit('sessionUpdated', 's-1');
    await waitFor(() => updated.length === 1, 'resources/updated');
    await harness.client.unsubscribeResource({ uri: SESSIONS_URI });
    harness.hub.emit('sessionUpdated', 's-1');
    await harness.client.ping();
    expect(updated).toEqual([SESSIONS_URI]);
  });

  test('SPEC §3 only tradescript://sessions can be subscribed', async () => {
    harness = await connectClient();
    const error = await harness.client.subscribeResource({ uri: CATALOG_URI }).catch((e: unknown) => e);
    expect((error as McpError).code).toBe(-32602);
  });
});

describe('attachment lifecycle', () => {
  test('SPEC §2 initialization attaches once with the client name (bounded to 128) and transport', async () => {
    harness = await connectClient({ clientName: 'c'.repeat(300) });
    expect(harness.hub.attached).toHaveLength(1);
    expect(harness.hub.attached[0]?.clientName).toBe('c'.repeat(128));
    expect(harness.hub.attached[0]?.transport).toBe('stdio');
  });

  test('SPEC §2 closing the connection detaches once and leaves no hub listener behind', async () => {
    harness = await connectClient();
    const id = harness.hub.attached[0]!.attachmentId;
    let theirs = 0;
    // The transport owner may set its own onclose; ours must still run.
    harness.server!.onclose = () => {
      theirs += 1;
    };
    await harness.close();
    await waitFor(() => harness!.hub.detached.length === 1, 'detach');
    expect(harness.hub.detached).toEqual([id]);
    expect(harness.hub.listenerCount()).toBe(0);
    expect(theirs).toBe(1);
  });

  test('SPEC §10 "detach" by the person closes this connection only', async () => {
    harness = await connectClient();
    let closed = false;
    harness.client.onclose = () => {
      closed = true;
    };
    harness.hub.emit('attachmentEnded', 'someone-else');
    await harness.client.ping();
    expect(closed).toBe(false);
    harness.hub.emit('attachmentEnded', harness.hub.attached[0]!.attachmentId);
    await waitFor(() => closed, 'the connection to close');
    await waitFor(() => harness!.hub.detached.length === 1, 'detach');
  });
});
