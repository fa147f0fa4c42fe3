/**
 * Both ends of the extension link on a real MessageChannel (SPEC §7, §10):
 * the service worker's end of the host-call link (`tabLinkClient`) and the
 * page's (`ExtensionPageEnd`) in front of a host whose binding sources and
 * requests the test drives.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PageMessageSchema, type PageMessage } from '../../../protocol/wire/extensionLink.js';
import type { Target } from '../../../protocol/index.js';
import { createTerminalHost } from '../../../sdk/host.js';
import { MemoryLedger } from '../../../sdk/ledger/memoryLedger.js';
import { request } from '../../../sdk/testing/fixtures.js';
import type { BindingRequest, BindingSinkEvent, TerminalHost } from '../../../sdk/types.js';
import { portEndpoint, type LinkEndpoint } from '../../link/linkEndpoint.js';
import { ExtensionPageEnd } from './pageEnd.js';
import { tabLinkClient } from '../sw/tabSession.js';

const SESSION: Target = { scope: 'session' };
const channels: MessageChannel[] = [];

afterEach(() => {
  for (const channel of channels.splice(0)) [channel.port1, channel.port2].forEach((port) => port.close());
});

/** A host whose binding sinks the test holds. */
function bindingHost(): { host: TerminalHost; sinks: Map<string, (e: BindingSinkEvent) => void>; stopped: string[] } {
  const host = createTerminalHost({ environment: 'paper', ledger: new MemoryLedger() });
  const sinks = new Map<string, (e: BindingSinkEvent) => void>();
  const stopped: string[] = [];
  host.startBinding = async (req, sink) => {
    sinks.set(req.bindingId, sink);
    return { ok: true };
  };
  host.stopBinding = (subscriptionId, bindingId) => {
    stopped.push(`${subscriptionId}/${bindingId}`);
    sinks.delete(bindingId);
  };
  return { host, sinks, stopped };
}

function link(host: TerminalHost) {
  const channel = new MessageChannel();
  channels.push(channel);
  const received: PageMessage[] = [];
  const events: PageMessage[] = [];
  const port = portEndpoint(channel.port2);
  const endpoint: LinkEndpoint = { post: (message) => port.post(message), onmessage: null, close: () => port.close() };
  port.onmessage = (data) => {
    received.push(PageMessageSchema.parse(data));
    endpoint.onmessage?.(data);
  };
  const client = tabLinkClient(
    endpoint,
    { decode: () => Promise.reject(new Error('no images in Node')) },
    (message) => {
      if (message.t === 'events' || message.t === 'targetUnregistered') events.push(message);
    },
  );
  const server = new ExtensionPageEnd(host, channel.port1, {
    info: () => ({ title: 'T', environment: 'paper', grant: 'write' }),
  });
  return { client, server, received, events, channel };
}

const binding = (bindingId: string): BindingRequest => ({
  sessionId: 's1',
  subscriptionId: 'sub-1',
  bindingId,
  channelId: 'data.quotes',
  target: SESSION,
  options: {},
  attachment: { attachmentId: 'a1', namespace: 'ns1', clientName: 'test' },
});

describe('SPEC §10 the page end of the extension link', () => {
  it('says attach first, then answers requests through the host SDK', async () => {
    const { host } = bindingHost();
    const { client, received } = link(host);
    const outcome = await client.handle(request({ kind: 'context', target: SESSION }));
    expect(received[0]).toMatchObject({ t: 'attach', info: { title: 'T' }, catalog: { controls: [] } });
    expect(outcome).toMatchObject({ ok: true, data: { target: SESSION } });
  });

  it('binding events travel batched to the service worker; a reset stops every binding and attaches again', async () => {
    const { host, sinks, stopped } = bindingHost();
    const { client, received, events, channel } = link(host);
    expect(await client.startBinding(binding('b1'), 5)).toEqual({ ok: true });
    sinks.get('b1')?.({ bindingId: 'b1', payload: { bid: '1.5' } });
    sinks.get('b1')?.({ bindingId: 'b1', dropped: 'invalid' });
    await vi.waitFor(() => expect(events).toEqual([{ t: 'events', h: [5, -5], p: [{ bid: '1.5' }, undefined] }]));
    channel.port2.postMessage({ t: 'reset' });
    await vi.waitFor(() => expect(received.filter((m) => m.t === 'attach')).toHaveLength(2));
    expect(stopped).toEqual(['sub-1/b1']);
  });

  it('ignores what does not parse (a subscribe op for the page), and settles every pending call when the link goes', async () => {
    const { host } = bindingHost();
    const handled = vi.spyOn(host, 'handle');
    const { client, channel } = link(host);
    const { sessionId, attachment, adapter, limits } = request({ kind: 'context', target: SESSION });
    channel.port2.postMessage({ t: 'scope', key: 1, scope: { sessionId, attachment, adapter, limits } });
    const subscribe = { kind: 'subscribe', input: { action: 'list' } };
    channel.port2.postMessage({ t: 'call', id: 'r1', key: 1, deadlineMs: 1000, op: subscribe });
    const pending = client.locate(SESSION);
    client.close();
    expect(await pending).toBeNull();
    const late = await client.handle(request({ kind: 'context', target: SESSION }));
    expect(late).toMatchObject({ ok: false, error: { code: 'transport_error' } });
    expect(handled).not.toHaveBeenCalled();
  });
});
