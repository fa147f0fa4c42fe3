import { describe, expect, it } from 'vitest';
import { ORPHAN_GRACE_MS, OrphanWatch } from './orphanWatch.js';
import { ManualClock } from '../testing/manualClock.js';

function setup(owners: string[], open = { value: true }) {
  const clock = new ManualClock();
  const ended: string[] = [];
  const watch = new OrphanWatch({ clock, owners: () => owners, end: (id) => ended.push(id), isOpen: () => open.value });
  return { clock, ended, watch };
}

describe('SPEC §7 subscriptions of an attachment that vanished without attachment.ended', () => {
  it('an owner missing from the attachments lists for the whole grace is treated as detached', () => {
    const { clock, ended, watch } = setup(['gone', 'here']);
    watch.listedNow(['here']);
    clock.advance(ORPHAN_GRACE_MS - 1);
    expect(ended).toEqual([]);
    clock.advance(1);
    expect(ended).toEqual(['gone']);
  });

  it('an owner listed again within the grace (a front resuming its attachment) keeps its subscriptions', () => {
    const { clock, ended, watch } = setup(['resumed']);
    watch.listedNow([]);
    clock.advance(ORPHAN_GRACE_MS / 2);
    watch.listedNow(['resumed']);
    clock.advance(ORPHAN_GRACE_MS * 2);
    expect(ended).toEqual([]);
  });

  it('offline when the grace ends, nothing is decided; the next list starts over', () => {
    const open = { value: false };
    const { clock, ended, watch } = setup(['a'], open);
    watch.listedNow([]);
    clock.advance(ORPHAN_GRACE_MS);
    expect(ended).toEqual([]);
    open.value = true;
    watch.listedNow([]);
    clock.advance(ORPHAN_GRACE_MS);
    expect(ended).toEqual(['a']);
  });

  it('close stops every timer', () => {
    const { clock, ended, watch } = setup(['a']);
    watch.listedNow([]);
    watch.close();
    expect(clock.waiting).toBe(0);
    clock.advance(ORPHAN_GRACE_MS);
    expect(ended).toEqual([]);
  });
});
