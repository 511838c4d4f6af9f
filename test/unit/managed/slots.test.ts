import assert from 'node:assert/strict';
import { LaunchSlot, Slots } from '../../../src/core/managed/slots';

const tick = () => new Promise((r) => setTimeout(r, 5));

describe('launch slots: setups let pending creates go first', () => {
  it('a setup waits while another launch has not called the cloud yet, and goes once it has', async () => {
    const slots = new Slots(4, 60_000);
    const never = new AbortController().signal;
    const a = new LaunchSlot(slots, never);
    const b = new LaunchSlot(slots, never);
    let aSetUp = false;
    void a.take().then(() => (aSetUp = true));
    await tick();
    assert.equal(aSetUp, false, 'b is still on its way to the create');
    assert.deepEqual(slots.load, { busy: 0, waiting: 0, creating: 1 });
    b.reachedCloud();
    await tick();
    assert.equal(aSetUp, true);
    assert.deepEqual(slots.load, { busy: 1, waiting: 0, creating: 0 });
    a.done();
    b.done();
    assert.deepEqual(slots.load, { busy: 0, waiting: 0, creating: 0 }, 'done is once per launch, whatever was reached');
  });

  it('a launch that ends before its create (adopted, failed) stops holding setups back', async () => {
    const slots = new Slots(1, 60_000);
    const s = new AbortController().signal;
    const a = new LaunchSlot(slots, s);
    const b = new LaunchSlot(slots, s);
    const got = a.take();
    b.done();
    await got;
    assert.equal(slots.load.busy, 1);
    a.done();
  });

  it('waits no longer than its bound (a stream of creates never starves setups), and a cancel ends the wait', async () => {
    const bounded = new Slots(2, 30);
    const stuck = new LaunchSlot(bounded, new AbortController().signal);
    await new LaunchSlot(bounded, new AbortController().signal).take();
    assert.equal(bounded.load.busy, 1, 'taken after the bound although a create is still pending');
    stuck.done();

    const slots = new Slots(2, 60_000);
    const ac = new AbortController();
    const pending = new LaunchSlot(slots, new AbortController().signal);
    const cut = new LaunchSlot(slots, ac.signal);
    let settled = false;
    const taking = cut.take().then(() => (settled = true), () => (settled = true));
    await tick();
    assert.equal(settled, false);
    ac.abort();
    await taking;
    assert.equal(settled, true, 'the cancel ended the wait, not the 60 s bound');
    cut.done();
    pending.done();
  });
});
