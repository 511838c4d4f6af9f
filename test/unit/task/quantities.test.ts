import assert from 'node:assert/strict';
import { parseCpus, parseDiskSize, parseMemory, parseMinutes, sizeInGb } from '../../../src/core/task/quantities';

const value = <T>(r: { ok: true; value: T } | { ok: false; problem: string }) => (r.ok ? r.value : `ERR ${r.problem}`);

describe('quantities', () => {
  it('cpus: numbers and N+', () => {
    assert.deepEqual(value(parseCpus(2)), { min: 2, orMore: false });
    assert.deepEqual(value(parseCpus('2.5+')), { min: 2.5, orMore: true });
    assert.deepEqual(value(parseCpus(' 16 ')), { min: 16, orMore: false });
    assert.equal(value(parseCpus('4++')), 'ERR must be a number or "<number>+", got "4++"');
    assert.equal(value(parseCpus('+')), 'ERR must be a number or "<number>+", got "+"');
    assert.equal(value(parseCpus('0+')), 'ERR must be greater than 0, got 0+');
  });

  it('memory: GB numbers, units (powers of 1024), N+', () => {
    assert.deepEqual(value(parseMemory(16)), { min: 16, orMore: false });
    assert.deepEqual(value(parseMemory('0.5+')), { min: 0.5, orMore: true });
    assert.deepEqual(value(parseMemory('2048MB')), { min: 2, orMore: false });
    assert.deepEqual(value(parseMemory('2tb+')), { min: 2048, orMore: true });
    assert.match(String(value(parseMemory('16 parsecs'))), /^ERR must be a number of GB/);
    assert.equal(value(parseMemory('0')), 'ERR must be greater than 0, got 0');
  });

  it('sizes', () => {
    assert.equal(sizeInGb('100'), 100);
    assert.equal(sizeInGb('1Ti'), 1024);
    assert.equal(sizeInGb('1024K'), 1 / 1024);
    assert.equal(sizeInGb('3 lightyears'), undefined);
    assert.equal(value(parseDiskSize('2TB')), 2048);
    assert.equal(value(parseDiskSize(50)), 50);
    assert.equal(value(parseDiskSize('1536MB')), 'ERR must be a whole number of GB, got "1536MB"');
  });

  it('autostop durations in minutes', () => {
    assert.equal(value(parseMinutes(15)), 15);
    assert.equal(value(parseMinutes('15')), 15);
    assert.equal(value(parseMinutes('3h')), 180);
    assert.equal(value(parseMinutes('2W')), 2 * 7 * 24 * 60);
    assert.equal(value(parseMinutes('10s')), 'ERR must be minutes or a duration such as 10m, 2h, 1d, got "10s"');
    assert.equal(value(parseMinutes(1.5)), 'ERR must be whole minutes, got 1.5');
  });
});
