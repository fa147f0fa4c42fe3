import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LIMITS,
  makeError,
  relayLimitsOf,
  type ErrorObject,
  type Operation,
  type RequestFrame,
} from '../../../protocol/index.js';
import { createLogger } from '../../log.js';
import { Hub } from '../hub.js';
import type { HubOutcome } from '../hubPort.js';
import { openScriptedTab, testAuthenticator, type ScriptedTab } from '../../testing/scriptedTab.js';

const limits = relayLimitsOf(DEFAULT_LIMITS);
const target = { scope: 'session' } as const;
const LONG = 'x'.repeat(200_000);

function nested(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i += 1) value = { down: value };
  return value;
}

function call(controlId: string, operationId = 'op-1'): Operation {
  return { kind: 'call', call: { target, controlId, args: [], operationId, callerOperationId: true } };
}

function receipt(request: RequestFrame, mutation: boolean, result: unknown, index = 0) {
  const relayCall =
    request.op.kind === 'call' ? request.op.call : request.op.kind === 'batch' ? request.op.calls[index] : undefined;
  return {
    operationId: relayCall?.operationId ?? 'op',
    origin: 'mcp',
    controlId: relayCall?.controlId ?? 'x.y',
    target,
    mutation,
    revisionsBefore: {},
    revisionsAfter: {},
    durationMs: 1,
    result,
  };
}

async function setup(): Promise<{ hub: Hub; tab: ScriptedTab; ask: (op: Operation) => Promise<HubOutcome> }> {
  const hub = new Hub({ auth: testAuthenticator(), logger: createLogger('silent'), serverVersion: 't' });
  const tab = await openScriptedTab(hub);
  const { attachmentId } = await hub.attach({ clientName: 'c', transport: 'stdio' });
  const options = { adapter: { maxAccess: 'write' as const, allowControls: null }, limits, deadlineMs: 5_000 };
  return { hub, tab, ask: (op) => hub.request(attachmentId, tab.sessionId, op, options) };
}

function answerError(tab: ScriptedTab, id: string, error: ErrorObject): void {
  tab.client.send({ t: 'response', id, environment: 'paper', outcome: { ok: false, error } });
}

describe('SPEC §6 the server holds what a page answers to jsonDepth, stringLength and resultBytes', () => {
  it('SPEC §6 a read result nested 40 deep, or with a 200,000-character string, is limit_exceeded, not a success', async () => {
    const { tab, ask } = await setup();
    for (const [result, limit] of [
      [nested(40), 'jsonDepth'],
      [{ text: LONG }, 'stringLength'],
    ] as const) {
      const pending = ask(call('chart.getVisibleRange'));
      const request = await tab.nextRequest();
      tab.answer(request.id, receipt(request, false, result));
      expect(await pending).toMatchObject({
        ok: false,
        error: { code: 'limit_exceeded', retry: 'after_correction', details: { limit, max: DEFAULT_LIMITS[limit] } },
      });
    }
    const context = ask({ kind: 'context', target });
    const request = await tab.nextRequest();
    tab.answer(request.id, { deep: nested(40) });
    expect(await context).toMatchObject({
      ok: false,
      error: { code: 'limit_exceeded', details: { limit: 'jsonDepth' } },
    });
  });

  it('SPEC §6 a mutation whose result breaks a limit keeps its receipt with result null and resultOmitted naming it', async () => {
    const { tab, ask } = await setup();
    for (const [result, limit] of [
      [nested(40), 'jsonDepth'],
      [{ text: LONG }, 'stringLength'],
    ] as const) {
      const pending = ask(call('chart.setVisibleRange', `op-${limit}`));
      const request = await tab.nextRequest();
      tab.answer(request.id, receipt(request, true, result));
      expect(await pending).toMatchObject({
        ok: true,
        data: {
          mutation: true,
          operationId: `op-${limit}`,
          result: null,
          resultOmitted: { reason: 'result-too-large', limit },
        },
      });
    }
  });

  it('SPEC §6 a mutation whose evidence or error breaks a limit is uncertain_execution with its receipt; an oversized details.result is left out', async () => {
    const { tab, ask } = await setup();
    const evidence = ask(call('chart.setVisibleRange', 'op-evidence'));
    const first = await tab.nextRequest();
    tab.answer(first.id, { ...receipt(first, true, 1), controlId: LONG });
    expect(await evidence).toMatchObject({
      ok: false,
      error: { code: 'uncertain_execution', details: { receipt: { operationId: 'op-evidence', mutation: true } } },
    });
    const refused = ask(call('chart.setVisibleRange', 'op-refused'));
    const second = await tab.nextRequest();
    answerError(tab, second.id, makeError('broker_rejection', LONG));
    expect(await refused).toMatchObject({ ok: false, error: { code: 'uncertain_execution' } });
    const partial = ask(call('chart.setVisibleRange', 'op-partial'));
    const third = await tab.nextRequest();
    answerError(tab, third.id, makeError('broker_rejection', 'some failed', { details: { result: nested(40) } }));
    const outcome = await partial;
    expect(outcome).toMatchObject({ ok: false, error: { code: 'broker_rejection', message: 'some failed' } });
    expect(!outcome.ok && outcome.error.details).toEqual({});
  });

  it('SPEC §6 a batch: a read outcome over a limit is rejected limit_exceeded, a mutation keeps a compact receipt', async () => {
    const { tab, ask } = await setup();
    const calls = [call('chart.getVisibleRange', 'op-r'), call('chart.setVisibleRange', 'op-w')].map((op) =>
      op.kind === 'call' ? op.call : (undefined as never),
    );
    const pending = ask({ kind: 'batch', calls, stopOnError: false });
    const request = await tab.nextRequest();
    tab.answer(request.id, {
      atomic: false,
      outcomes: [
        { index: 0, status: 'fulfilled', receipt: receipt(request, false, { text: LONG }, 0) },
        { index: 1, status: 'fulfilled', receipt: receipt(request, true, nested(40), 1) },
      ],
    });
    expect(await pending).toMatchObject({
      ok: true,
      data: {
        outcomes: [
          { index: 0, status: 'rejected', error: { code: 'limit_exceeded', details: { limit: 'stringLength' } } },
          { index: 1, status: 'fulfilled', receipt: { result: null, resultOmitted: { limit: 'jsonDepth' } } },
        ],
      },
    });
  });

  it('SPEC §6 answers within the limits pass unchanged, and a lowered limit is the asking front’s', async () => {
    const { hub, tab } = await setup();
    const { attachmentId } = await hub.attach({ clientName: 'low', transport: 'stdio' });
    const low = { ...limits, jsonDepth: 8 };
    const options = { adapter: { maxAccess: 'write' as const, allowControls: null }, deadlineMs: 5_000 };
    const fine = hub.request(attachmentId, tab.sessionId, call('chart.getVisibleRange'), { ...options, limits });
    const r1 = await tab.nextRequest();
    tab.answer(r1.id, receipt(r1, false, nested(10)));
    expect(await fine).toMatchObject({ ok: true, data: { result: nested(10) } });
    const lowered = hub.request(attachmentId, tab.sessionId, call('chart.getVisibleRange'), {
      ...options,
      limits: low,
    });
    const r2 = await tab.nextRequest();
    tab.answer(r2.id, receipt(r2, false, nested(10)));
    expect(await lowered).toMatchObject({ ok: false, error: { details: { limit: 'jsonDepth', max: 8 } } });
  });
});
