import assert from 'node:assert/strict';
describe('smoke', () => { it('runs TypeScript tests', () => { const x: number = 1 + 1; assert.equal(x, 2); }); });
