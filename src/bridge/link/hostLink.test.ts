import { afterEach, describe, expect, it, vi } from 'vitest';
import type { HostLinkCall } from '../../protocol/wire/hostLink.js';
import type { Operation } from '../../protocol/index.js';
import type { BindingStart, CaptureOutcome, RequestHooks, SessionOutcome, SessionRequest } from '../../sdk/types.js';
import { MAX_CALL_SCOPES, sameJson } from './callScopes.js';
import { BridgeCallLink } from './bridgeCallLink.js';
import { PageCallLink } from './pageCallLink.js';
import type { LinkHost } from './pageHostLink.js';
import { cloneCodec } from './linkCodecs.js';
import { portEndpoint, type LinkEndpoint } from './linkEndpoint.js';
import { pageDefect } from '../page/pageError.js';
import { requestFrame } from '../testing/scriptedRelay.js';

type CallOp = SessionRequest['op'];

/** The page's host as the host-call link uses it, answering from a script. */
class ScriptedHost implements LinkHost {
  readonly requests: SessionRequest[] = [];
  answer: (request: SessionRequest, hooks: RequestHooks) => Promise<SessionOutcome> = () =>
    Promise.resolve({ ok: true, data: { answered: true } });
  handle(request: SessionRequest, hooks: RequestHooks = {}): Promise<SessionOutcome> {
    this.requests.push(request);
    return this.answer(request, hooks);
  }
  startBinding(): Promise<BindingStart> {
    return Promise.resolve({ ok: true });
  }
  stopBinding(): void {}
  capture(): Promise<CaptureOutcome> {
    return Promise.resolve({ ok: false, error: pageDefect('not in Node') });
  }
  onTargetUnregistered(): () => void {
    return () => undefined;
  }
}

const contextOp: CallOp = { kind: 'context', target: { scope: 'session' } };
let channels: MessageChannel[] = [];

afterEach(() => {
  for (const channel of channels) [channel.port1, channel.port2].forEach((port) => port.close());
  channels = [];
});

/** The bridge's end and the page's end on a real MessageChannel; `sent` records what the bridge posts. */
function linked(host = new ScriptedHost()) {
  const channel = new MessageChannel();
  channels.push(channel);
  const sent: HostLinkCall[] = [];
  const port = portEndpoint(channel.port2);
  const workerEnd: LinkEndpoint = {
    post: (message) => {
      sent.push(message as HostLinkCall);
      port.post(message);
    },
    set onmessage(listener) {
      port.onmessage = listener;
    },
    get onmessage() {
      return port.onmessage;
    },
    close: () => port.close(),
  };
  const unanswered = pageDefect('The page did not answer this request; reload the terminal tab.');
  const client = new BridgeCallLink({ endpoint: workerEnd, codec: cloneCodec, onNotice: () => undefined, unanswered });
  const server = new PageCallLink(host, { endpoint: portEndpoint(channel.port1), codec: cloneCodec });
  return { host, client, sent, server, pagePort: channel.port2 };
}

/** The session request the host router builds from a relay request. */
function sessionRequest(id: string, overrides: Parameters<typeof requestFrame>[3] = {}, op: CallOp = contextOp) {
  const { t: _t, ...request } = requestFrame(id, 'sess-1', op as Operation, overrides);
  return { ...request, op } as SessionRequest;
}

describe('SPEC §1 §12 the host-call link: requests for the host SDK as plain messages', () => {
  it('the scope crosses once per attachment; each call carries only id, key, deadline and operation', async () => {
    const { host, client, sent } = linked();
    const first = sessionRequest('r1');
    const second = sessionRequest('r2');
    expect(await client.handle(first)).toEqual({ ok: true, data: { answered: true } });
    expect(await client.handle(second)).toEqual({ ok: true, data: { answered: true } });
    expect(sent.map((m) => m.t)).toEqual(['scope', 'call', 'call']);
    for (const call of sent.filter((m) => m.t === 'call')) {
      expect(Object.keys(call).sort()).toEqual(['deadlineMs', 'id', 'key', 'op', 't']);
    }
    expect(host.requests).toEqual([first, second]);
  });

  it('a scope that changed (other limits) gets a new key and the old one is dropped', async () => {
    const { host, client, sent } = linked();
    const before = sessionRequest('r1');
    await client.handle(before);
    const lowered = { ...before.limits, batchCalls: 5 };
    await client.handle(sessionRequest('r2', { limits: lowered }));
    expect(sent.map((m) => m.t)).toEqual(['scope', 'call', 'drop', 'scope', 'call']);
    expect(host.requests[1]?.limits.batchCalls).toBe(5);
  });

  it('each attachment has its own scope, and an ended attachment’s scope is forgotten on the page', async () => {
    const { host, client, sent, pagePort } = linked();
    const other = { attachmentId: 'att-2', namespace: 'ns-2', clientName: 'other client' };
    await client.handle(sessionRequest('r1'));
    await client.handle(sessionRequest('r2', { attachment: other }));
    expect(host.requests.map((r) => r.attachment.namespace)).toEqual(['ns-1', 'ns-2']);
    client.attachmentEnded('att-2');
    const dropped = sent.at(-1);
    expect(dropped?.t).toBe('drop');
    // A call naming the dropped key (a bridge defect) is refused, not run with a stale scope.
    const key = dropped?.t === 'drop' ? dropped.key : -1;
    const answers: unknown[] = [];
    pagePort.addEventListener('message', (event) => answers.push(event.data));
    pagePort.postMessage({ t: 'call', id: 'stale', key, deadlineMs: 1000, op: contextOp });
    await vi.waitFor(() => expect(answers).toHaveLength(1));
    expect(answers[0]).toMatchObject({ t: 'result', id: 'stale', outcome: { ok: false } });
    expect(host.requests).toHaveLength(2);
  });

  it(`at most ${MAX_CALL_SCOPES} scopes are kept: the oldest is dropped first`, async () => {
    const { client, sent } = linked();
    for (let i = 0; i <= MAX_CALL_SCOPES; i++) {
      const attachment = { attachmentId: `att-${i}`, namespace: `ns-${i}`, clientName: 'c' };
      await client.handle(sessionRequest(`r${i}`, { attachment }));
    }
    expect(sent.filter((m) => m.t === 'drop')).toEqual([{ t: 'drop', key: 1 }]);
  });

  it('SPEC §5 cancel aborts the page-side signal; progress comes back by id', async () => {
    const host = new ScriptedHost();
    host.answer = (_request, hooks) => {
      hooks.progress?.(1, 3);
      return new Promise((resolve) =>
        hooks.signal?.addEventListener('abort', () => resolve({ ok: true, data: 'abandoned' })),
      );
    };
    const { client } = linked(host);
    const progress: Array<[string, number, number | undefined]> = [];
    const caller = new AbortController();
    const answer = client.handle(sessionRequest('r-c'), {
      signal: caller.signal,
      progress: (value, total) => progress.push(['r-c', value, total]),
    });
    await vi.waitFor(() => expect(progress).toEqual([['r-c', 1, 3]]));
    caller.abort();
    expect(await answer).toEqual({ ok: true, data: 'abandoned' });
  });

  it('SPEC §5 a caller that offers onAbort is heard through it: its signal is never read', async () => {
    const host = new ScriptedHost();
    host.answer = (_request, hooks) =>
      new Promise((resolve) => hooks.signal?.addEventListener('abort', () => resolve({ ok: true, data: 'abandoned' })));
    const { client } = linked(host);
    let abort: (() => void) | null = null;
    const hooks = {
      get signal(): AbortSignal {
        throw new Error('the link read the signal');
      },
      onAbort: (listener: () => void) => void (abort = listener),
    };
    const answer = client.handle(sessionRequest('r-o'), hooks);
    await vi.waitFor(() => expect(host.requests).toHaveLength(1));
    abort!();
    expect(await answer).toEqual({ ok: true, data: 'abandoned' });
  });

  it('closing settles every pending call as internal_error', async () => {
    const host = new ScriptedHost();
    host.answer = () => new Promise(() => undefined);
    const { client } = linked(host);
    const answer = client.handle(sessionRequest('r-x'));
    await vi.waitFor(() => expect(host.requests).toHaveLength(1));
    client.close();
    const outcome = await answer;
    expect(outcome.ok === false && outcome.error.code).toBe('internal_error');
    expect(client.waiting).toBe(0);
  });

  it('a host defect (a throw, or an answer that cannot be cloned) becomes internal_error, not a lost call', async () => {
    const host = new ScriptedHost();
    host.answer = (request) =>
      request.id === 'throws'
        ? Promise.reject(new Error('boom'))
        : Promise.resolve({ ok: true, data: { fn: () => undefined } });
    const { client } = linked(host);
    for (const id of ['throws', 'uncloneable']) {
      const outcome = await client.handle(sessionRequest(id));
      expect(outcome.ok === false && outcome.error.code).toBe('internal_error');
    }
  });
});

describe('scope equality', () => {
  it('compares plain JSON deeply, in any key order', () => {
    expect(sameJson({ a: [1, { b: null }], c: 'x' }, { c: 'x', a: [1, { b: null }] })).toBe(true);
    expect(sameJson({ a: [1, 2] }, { a: [1, 2, 3] })).toBe(false);
    expect(sameJson({ a: null }, { a: {} })).toBe(false);
    expect(sameJson({ a: undefined }, { b: undefined })).toBe(false);
    expect(sameJson([], {})).toBe(false);
  });
});
