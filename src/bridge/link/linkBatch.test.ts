import { afterEach, describe, expect, it } from 'vitest';
import { LINK_BATCHES_HELLO, MAX_LINK_BATCH } from '../../protocol/wire/hostLink.js';
import type { Operation } from '../../protocol/index.js';
import type { SessionOutcome, SessionRequest } from '../../sdk/types.js';
import { BridgeCallLink } from './bridgeCallLink.js';
import { batchingEndpoint } from './linkBatch.js';
import { cloneCodec } from './linkCodecs.js';
import { portEndpoint, type LinkEndpoint } from './linkEndpoint.js';
import { PageCallLink } from './pageCallLink.js';
import type { LinkHost } from './pageHostLink.js';
import { pageDefect } from '../page/pageError.js';
import { requestFrame } from '../testing/scriptedRelay.js';

let channels: MessageChannel[] = [];
afterEach(() => {
  for (const channel of channels) [channel.port1, channel.port2].forEach((port) => port.close());
  channels = [];
});

/** A port endpoint that records every message it posts (what crossed the channel, as it crossed). */
function recorded(port: MessagePort): { endpoint: LinkEndpoint; posted: unknown[] } {
  const inner = portEndpoint(port);
  const posted: unknown[] = [];
  const endpoint: LinkEndpoint = {
    post: (message, transfer) => {
      posted.push(message);
      inner.post(message, transfer);
    },
    get onmessage() {
      return inner.onmessage;
    },
    set onmessage(listener) {
      inner.onmessage = listener;
    },
    close: () => inner.close(),
  };
  return { endpoint, posted };
}

function channel() {
  const made = new MessageChannel();
  channels.push(made);
  return made;
}

const turn = () => new Promise((resolve) => setTimeout(resolve, 10));

/** A batching end whose posts are recorded, linked to a batching end (or an old plain one) that records what arrives. */
async function pair(otherBatches = true) {
  const { port1, port2 } = channel();
  const a = recorded(port1);
  const left = batchingEndpoint(a.endpoint);
  const right = otherBatches ? batchingEndpoint(portEndpoint(port2)) : portEndpoint(port2);
  const got: unknown[] = [];
  right.onmessage = (data) => got.push(data);
  await turn();
  return { left, posted: a.posted, got };
}

describe('issue 15 the page↔worker link batches what one turn posts, once both ends said they read batches', () => {
  it('after the hellos, three posts of one turn cross as one array and arrive as three messages in order; a lone one as itself', async () => {
    const { left, posted, got } = await pair();
    left.post({ t: 'x', n: 1 });
    left.post({ t: 'x', n: 2 });
    left.post({ t: 'x', n: 3 });
    await turn();
    left.post({ t: 'x', n: 4 });
    await turn();
    expect(got).toEqual([1, 2, 3, 4].map((n) => ({ t: 'x', n })));
    expect(posted).toEqual([LINK_BATCHES_HELLO, [1, 2, 3].map((n) => ({ t: 'x', n })), { t: 'x', n: 4 }]);
  });

  it('an end older than batches never gets an array, and the hello it gets is a message it drops', async () => {
    const { left, posted, got } = await pair(false);
    left.post({ t: 'x', n: 1 });
    left.post({ t: 'x', n: 2 });
    await turn();
    expect(posted).toEqual([LINK_BATCHES_HELLO, { t: 'x', n: 1 }, { t: 'x', n: 2 }]);
    expect(got).toEqual([LINK_BATCHES_HELLO, { t: 'x', n: 1 }, { t: 'x', n: 2 }]);
  });

  it('a post with a transfer goes after what was queued before it; at most 64 per array', async () => {
    const { left, posted, got } = await pair();
    left.post({ t: 'x', n: 1 });
    const buffer = new ArrayBuffer(8);
    left.post({ t: 'x', n: 2, buffer }, [buffer]);
    for (let n = 0; n < MAX_LINK_BATCH + 1; n++) left.post({ t: 'y', n });
    await turn();
    expect(got.map((m) => (m as { t: string }).t)).toEqual(['x', 'x', ...Array(MAX_LINK_BATCH + 1).fill('y')]);
    expect(posted.slice(1).map((m) => (Array.isArray(m) ? m.length : 1))).toEqual([1, 1, MAX_LINK_BATCH, 1]);
  });

  it('an answer that cannot be cloned, sent from a batch, still answers internal_error and the others arrive', async () => {
    const { port1, port2 } = channel();
    const answers: Record<string, unknown> = { r1: 1, r2: () => 'not cloneable', r3: 3 };
    const host: LinkHost = {
      handle: (request) => Promise.resolve({ ok: true, data: answers[request.id] } as SessionOutcome),
      startBinding: () => Promise.resolve({ ok: true }),
      stopBinding: () => undefined,
      capture: () => Promise.resolve({ ok: false, error: pageDefect('not in Node') }),
      onTargetUnregistered: () => () => undefined,
    };
    const page = new PageCallLink(host, { endpoint: batchingEndpoint(portEndpoint(port1)), codec: cloneCodec });
    const bridge = new BridgeCallLink({
      endpoint: batchingEndpoint(portEndpoint(port2)),
      codec: cloneCodec,
      onNotice: () => undefined,
      unanswered: pageDefect('unanswered'),
    });
    await turn();
    const request = (id: string) => {
      const { t: _t, ...frame } = requestFrame(id, 'sess-1', {
        kind: 'context',
        target: { scope: 'session' },
      } as Operation);
      return frame as SessionRequest;
    };
    const outcomes = await Promise.all(['r1', 'r2', 'r3'].map((id) => bridge.handle(request(id))));
    expect(outcomes[0]).toEqual({ ok: true, data: 1 });
    expect(outcomes[1]).toMatchObject({ ok: false, error: { code: 'internal_error' } });
    expect(outcomes[2]).toEqual({ ok: true, data: 3 });
    page.close();
    bridge.close();
  });
});
