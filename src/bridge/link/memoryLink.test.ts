import { describe, expect, it } from 'vitest';
import { memoryLink } from './memoryLink.js';

describe('issue 15 item 1 the in-thread host-call link', () => {
  it('delivers each message to the other end on a later microtask, in order and uncloned', async () => {
    const [a, b] = memoryLink();
    const heard: unknown[] = [];
    b.onmessage = (data) => heard.push(data);
    const message = { t: 'a', nested: { n: 1 } };
    a.post(message);
    a.post({ t: 'b' });
    expect(heard).toEqual([]);
    await Promise.resolve();
    expect(heard).toEqual([message, { t: 'b' }]);
    expect(heard[0]).toBe(message);
  });

  it('a closed end neither sends nor receives', async () => {
    const [a, b] = memoryLink();
    const heard: unknown[] = [];
    a.onmessage = (data) => heard.push(data);
    b.onmessage = (data) => heard.push(data);
    a.close();
    a.post('to b');
    b.post('to a');
    await Promise.resolve();
    expect(heard).toEqual([]);
  });
});
