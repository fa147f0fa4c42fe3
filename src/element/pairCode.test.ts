import { describe, expect, it } from 'vitest';
import { checkPairCode, PAIR_COMMAND, takePairCodeFromUrl } from './pairCode.js';

function fakePage(hash: string) {
  const replaced: string[] = [];
  const location = { hash, pathname: '/terminal', search: '?relay=x' } as Location;
  const history = {
    state: null,
    replaceState: (_s: unknown, _t: string, url: string) => replaced.push(url),
  } as unknown as History;
  return { location, history, replaced };
}

describe('pairing codes (SPEC §9)', () => {
  it('accepts the printed code in any case, with or without separators, or the whole pairing link', () => {
    for (const input of ['ABCD-2345', 'abcd2345', ' abcd 2345 ', 'http://127.0.0.1:7392/#pair=ABCD-2345']) {
      expect(checkPairCode(input)).toEqual({ ok: true, code: 'ABCD-2345' });
    }
  });

  it('refuses empty and malformed input with a message naming the command, never echoing the input', () => {
    expect(checkPairCode('  ')).toMatchObject({ ok: false });
    const bad = checkPairCode('<script>');
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.message).toContain(PAIR_COMMAND);
      expect(bad.message).not.toContain('<script>');
    }
  });

  it('reads #pair=CODE and removes the fragment from history at once, keeping path and query', () => {
    const page = fakePage('#pair=wxyz-6789');
    expect(takePairCodeFromUrl(page.location, page.history)).toBe('WXYZ-6789');
    expect(page.replaced).toEqual(['/terminal?relay=x']);
  });

  it('removes an unreadable code from history too, and leaves an address without one alone', () => {
    const junk = fakePage('#pair=%3Cscript%3E');
    expect(takePairCodeFromUrl(junk.location, junk.history)).toBeNull();
    expect(junk.replaced).toHaveLength(1);
    const none = fakePage('#section');
    expect(takePairCodeFromUrl(none.location, none.history)).toBeNull();
    expect(none.replaced).toEqual([]);
  });
});
