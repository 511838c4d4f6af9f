import assert from 'node:assert/strict';
import { OutputPump, type PumpSource } from '../../../src/ui/logs/outputPump';
import { tick } from './fakeSource';

class MemSource implements PumpSource {
  buf = Buffer.alloc(0);
  get size() {
    return this.buf.length;
  }
  read(offset: number, max: number) {
    return this.buf.subarray(offset, offset + max);
  }
  add(n: number, fill = 'x') {
    this.buf = Buffer.concat([this.buf, Buffer.alloc(n, fill)]);
  }
}

function setup(opts = { batchBytes: 1000, batchMs: 10, windowBytes: 3000 }) {
  const src = new MemSource();
  const sent: { session: number; offset: number; len: number }[] = [];
  const pump = new OutputPump(src, (session, offset, data) => sent.push({ session, offset, len: data.length }), opts);
  return { src, sent, pump };
}

describe('OutputPump', () => {
  it('coalesces many small chunks into few messages', async () => {
    const { src, sent, pump } = setup();
    pump.start(1, 0);
    for (let i = 0; i < 50; i++) {
      src.add(10);
      pump.notify();
    }
    assert.equal(sent.length, 0, 'partial batches wait for the timer');
    await tick(25);
    assert.deepEqual(sent, [{ session: 1, offset: 0, len: 500 }]);
    pump.stop();
  });

  it('sends full batches at once and stops at the window until acks come', () => {
    const { src, sent, pump } = setup();
    pump.start(1, 0);
    src.add(10_000);
    pump.notify();
    assert.deepEqual(sent.map((s) => s.offset), [0, 1000, 2000]);
    assert.equal(pump.inFlight, 3000);
    pump.ack(1, 1000);
    assert.deepEqual(sent.map((s) => s.offset), [0, 1000, 2000, 3000]);
    pump.ack(1, 4000);
    assert.equal(sent.length, 7);
    pump.stop();
  });

  it('ignores acks from a replaced page and restarts from the given offset', () => {
    const { src, sent, pump } = setup();
    src.add(5000);
    pump.start(1, 0);
    assert.equal(sent.length, 3);
    pump.start(2, 2000);
    assert.deepEqual(sent.slice(3).map((s) => [s.session, s.offset]), [[2, 2000], [2, 3000], [2, 4000]]);
    pump.ack(1, 5000); // stale
    assert.equal(pump.acknowledged, 2000);
    pump.ack(2, 5000);
    assert.equal(pump.acknowledged, 5000);
    pump.stop();
  });

  it('delivers every byte exactly once under random chunking', async () => {
    const { src, sent, pump } = setup({ batchBytes: 4096, batchMs: 1, windowBytes: 16384 });
    pump.start(1, 0);
    let total = 0;
    for (let i = 0; i < 300; i++) {
      const n = 1 + Math.floor(Math.random() * 3000);
      src.add(n);
      total += n;
      pump.notify();
      if (i % 7 === 0) pump.ack(1, pump.acknowledged + pump.inFlight);
      if (i % 50 === 0) await tick(2);
    }
    while (pump.acknowledged < total) {
      pump.ack(1, pump.acknowledged + pump.inFlight);
      await tick(2);
    }
    let next = 0;
    for (const s of sent) {
      assert.equal(s.offset, next);
      next += s.len;
    }
    assert.equal(next, total);
    pump.stop();
  });

  it('sends nothing after stop', async () => {
    const { src, sent, pump } = setup();
    pump.start(1, 0);
    src.add(10);
    pump.notify();
    pump.stop();
    await tick(20);
    src.add(5000);
    pump.notify();
    assert.equal(sent.length, 0);
  });
});
