import { describe, expect, it } from 'vitest';
import type { SessionRequest } from '../../sdk/types.js';
import { directCalls } from './directCalls.js';

const request = { id: 'r1', op: { kind: 'context', target: { scope: 'session' } } } as unknown as SessionRequest;

describe('SPEC §1 §3 a session’s requests run in the host SDK on the page’s own thread', () => {
  it('the SDK’s answer is the outcome; its progress reaches the caller; its throw is an internal_error outcome, not a rejection', async () => {
    const reports: Array<[number, number | undefined]> = [];
    const answering = directCalls({
      handle: (_request, hooks) => {
        hooks?.progress?.(1, 2);
        return Promise.resolve({ ok: true, data: 'answered' });
      },
    });
    const outcome = await answering.handle(request, { progress: (p, t) => reports.push([p, t]) });
    expect(outcome).toEqual({ ok: true, data: 'answered' });
    expect(reports).toEqual([[1, 2]]);
    const throwing = directCalls({ handle: () => Promise.reject(new Error('host bug')) });
    const failed = await throwing.handle(request);
    expect(failed.ok === false && failed.error.code).toBe('internal_error');
  });

  it('the caller’s signal is made only when the SDK reads it, and it is the caller’s', async () => {
    let reads = 0;
    const controller = new AbortController();
    const hooks = {
      get signal() {
        reads++;
        return controller.signal;
      },
    };
    await directCalls({ handle: () => Promise.resolve({ ok: true, data: null }) }).handle(request, hooks);
    expect(reads).toBe(0);
    let seen: AbortSignal | undefined;
    await directCalls({
      handle: (_request, sdkHooks) => {
        seen = sdkHooks?.signal;
        return Promise.resolve({ ok: true, data: null });
      },
    }).handle(request, hooks);
    expect(reads).toBe(1);
    expect(seen).toBe(controller.signal);
  });
});
