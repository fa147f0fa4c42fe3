import { describe, expect, it } from 'vitest';
import { PageToWorkerSchema, WorkerToPageSchema } from './observeLink.js';

const request = (op: unknown) => ({ t: 'request', id: 'r1', sessionId: 's_1', op });
const snapshot = { kind: 'snapshot', target: { scope: 'chart', chartId: 'c' }, format: 'png' };

describe('SPEC §1 the page ↔ bridge worker link’s own messages are parsed where they arrive', () => {
  it('the worker is handed only what it serves: subscribe and snapshot requests, never a call', () => {
    expect(PageToWorkerSchema.safeParse({ t: 'observe', id: 'o1', request: request(snapshot) }).success).toBe(true);
    const subscribe = { kind: 'subscribe', input: { action: 'stop', subscriptionId: 'x' } };
    expect(PageToWorkerSchema.safeParse({ t: 'observe', id: 'o1', request: request(subscribe) }).success).toBe(true);
    const call = { kind: 'call', target: { scope: 'session' }, controlId: 'x', args: [] };
    expect(PageToWorkerSchema.safeParse({ t: 'observe', id: 'o1', request: request(call) }).success).toBe(false);
    expect(PageToWorkerSchema.safeParse({ t: 'observe', id: '', request: request(snapshot) }).success).toBe(false);
  });

  it('session, attachment and timer notices are checked; the host link’s answers still pass', () => {
    expect(PageToWorkerSchema.safeParse({ t: 'session', sessionId: null, open: false }).success).toBe(true);
    expect(PageToWorkerSchema.safeParse({ t: 'session', sessionId: 's_1', open: 'yes' }).success).toBe(false);
    expect(PageToWorkerSchema.safeParse({ t: 'attachmentsListed', attachmentIds: ['a', 'b'] }).success).toBe(true);
    expect(PageToWorkerSchema.safeParse({ t: 'timer', id: 1, ms: 20_000 }).success).toBe(true);
    expect(PageToWorkerSchema.safeParse({ t: 'timer', id: 0, ms: 20_000 }).success).toBe(false);
    expect(PageToWorkerSchema.safeParse({ t: 'timer', id: 1, ms: -1 }).success).toBe(false);
    expect(PageToWorkerSchema.safeParse({ t: 'closeObserver', extra: 1 }).success).toBe(false);
    expect(PageToWorkerSchema.safeParse({ t: 'result', id: 'r1', outcome: { ok: true, data: 1 } }).success).toBe(true);
  });

  it('the worker answers with an outcome (or null: not served), progress and ticks; the host link’s calls still pass', () => {
    expect(WorkerToPageSchema.safeParse({ t: 'observed', id: 'o1', outcome: { ok: true, data: {} } }).success).toBe(
      true,
    );
    expect(WorkerToPageSchema.safeParse({ t: 'observed', id: 'o1', outcome: null }).success).toBe(true);
    expect(WorkerToPageSchema.safeParse({ t: 'observed', id: 'o1', outcome: 'done' }).success).toBe(false);
    expect(WorkerToPageSchema.safeParse({ t: 'observeProgress', id: 'o1', progress: -1 }).success).toBe(false);
    expect(WorkerToPageSchema.safeParse({ t: 'tick', id: 3 }).success).toBe(true);
    expect(WorkerToPageSchema.safeParse({ t: 'tick', id: 'x' }).success).toBe(false);
    expect(WorkerToPageSchema.safeParse({ t: 'stopBinding', subscriptionId: 's', bindingId: 'b' }).success).toBe(true);
  });
});
