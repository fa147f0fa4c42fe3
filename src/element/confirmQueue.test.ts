import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createConfirmGate } from './confirmGate.js';
import { ConfirmQueue } from './confirmQueue.js';

const question = { controlId: 'orders.cancelAll', target: { scope: 'session' as const }, clientName: 'Claude' };

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('confirmation queue (SPEC §5)', () => {
  it('answers one question at a time, in arrival order', async () => {
    const queue = new ConfirmQueue(() => undefined);
    const first = queue.ask(question, new AbortController().signal, 20_000);
    const second = queue.ask({ ...question, clientName: 'Inspector' }, new AbortController().signal, 20_000);
    expect(queue.current()?.question.clientName).toBe('Claude');
    expect(queue.size).toBe(2);
    queue.answer(queue.current()!.id, true);
    expect(await first).toBe(true);
    expect(queue.current()?.question.clientName).toBe('Inspector');
    queue.answer(queue.current()!.id, false);
    expect(await second).toBe(false);
    expect(queue.current()).toBeUndefined();
  });

  it('declines when nobody answers in time; a late answer is ignored', async () => {
    const queue = new ConfirmQueue(() => undefined);
    const answer = queue.ask(question, new AbortController().signal, 500);
    const id = queue.current()!.id;
    vi.advanceTimersByTime(500);
    expect(await answer).toBe(false);
    queue.answer(id, true);
    expect(queue.size).toBe(0);
  });

  it('never waits longer than the SDK 20 s window', async () => {
    const queue = new ConfirmQueue(() => undefined);
    const answer = queue.ask(question, new AbortController().signal, 60_000);
    expect(queue.current()?.timeoutMs).toBe(20_000);
    vi.advanceTimersByTime(20_000);
    expect(await answer).toBe(false);
  });

  it('closes the question when its signal aborts, also when it was aborted already', async () => {
    const queue = new ConfirmQueue(() => undefined);
    const stop = new AbortController();
    const answer = queue.ask(question, stop.signal, 20_000);
    stop.abort();
    expect(await answer).toBe(false);
    expect(queue.current()).toBeUndefined();
    expect(await queue.ask(question, AbortSignal.abort(), 20_000)).toBe(false);
    expect(queue.size).toBe(0);
  });
});

describe('confirm gate (SPEC §5)', () => {
  const ask = (gate: ReturnType<typeof createConfirmGate>, signal = new AbortController().signal) =>
    gate.confirm({ ...question, args: [], signal });

  it('off: trade-class calls run without a question; on without a presenter: declined', async () => {
    const gate = createConfirmGate();
    expect(gate.enabled).toBe(false);
    expect(await ask(gate)).toBe(true);
    gate.enabled = true;
    expect(await ask(gate)).toBe(false);
  });

  it('on: the presenting element answers, without argument values; after it leaves, declined', async () => {
    const gate = createConfirmGate({ enabled: true });
    const seen: unknown[] = [];
    const leave = gate.present(async (q) => {
      seen.push(q);
      return true;
    });
    expect(await ask(gate)).toBe(true);
    expect(seen).toEqual([question]);
    leave();
    expect(await ask(gate)).toBe(false);
  });

  it('tells listeners when the mode changes', () => {
    const gate = createConfirmGate();
    const heard = vi.fn();
    const off = gate.onChange(heard);
    gate.enabled = true;
    gate.enabled = true;
    off();
    gate.enabled = false;
    expect(heard).toHaveBeenCalledTimes(1);
  });
});
