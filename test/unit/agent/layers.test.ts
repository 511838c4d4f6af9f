import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkLayers, importGraph, Layer } from './layerCheck';

// The agent's layers, lowest first (agent/README.md, "Module layers", says the same). A module
// imports only modules of lower layers: a command never imports another command, and the
// scheduler never reaches up to cancel or the daemon.
const AGENT_LAYERS: Layer[] = [
  { name: 'base', modules: ['__init__', 'errors', 'states', 'wire', 'private', 'cgroups', 'pending_secrets', 'devices', 'kube_ws', 'request_lines'] },
  { name: 'records', modules: ['paths', 'db', 'spec', 'nodes', 'job_ids'] },
  { name: 'node', modules: ['kexec', 'context', 'hooks', 'procs', 'driver', 'resources', 'job_cgroups', 'flushwait'] },
  { name: 'reach', modules: ['spawn', 'remote', 'httpjson', 'rank_sh', 'watch', 'stage'] },
  { name: 'start', modules: ['launcher'] },
  { name: 'park', modules: ['park'] },
  { name: 'shared', modules: ['job_kill', 'daemon_ctl', 'autostop', 'gce_stop', 'azure_stop', 'kube_stop', 'stager'] },
  { name: 'scheduler', modules: ['scheduler'] },
  { name: 'liveness', modules: ['liveness'] },
  { name: 'commands', modules: ['cancel', 'jobs', 'logs', 'gang', 'rank', 'selfstop', 'daemon'] },
  { name: 'serve', modules: ['serve'] },
  { name: 'dispatch', modules: ['cli'], lazy: true },
];

const AGENT_LIB = path.resolve(__dirname, '../../../agent/skydeck_agent_lib');

function plant(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-layers-'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, `${name}.py`), text);
  return dir;
}

describe('agent module layers', () => {
  it('the agent imports only downward, at the top of each module (the dispatch may defer)', () => {
    const g = importGraph(AGENT_LIB);
    // The graph is the real one: a broken extractor finding nothing would pass the check below.
    assert.ok(g.imports.length > 100, `only ${g.imports.length} imports found`);
    assert.ok(g.imports.some((e) => e.from === 'cancel' && e.to === 'scheduler' && e.top));
    assert.ok(g.imports.some((e) => e.from === 'cli' && e.to === 'serve' && !e.top));
    assert.deepEqual(checkLayers(g, AGENT_LAYERS), []);
  });

  it('reports every kind of breach in a planted package', () => {
    const dir = plant({
      low: 'from . import high\n', // upward
      mid: 'import os\nfrom . import low\n\n\ndef f():\n    from . import low as again\n    return again, os\n',
      high: 'import importlib\nfrom . import mid\nfrom .mid import _hidden\n\n\ndef g():\n    return importlib.import_module("x")\n',
      peer: 'from skydeck_agent_lib import high\n', // same layer
      top: 'def main():\n    from . import high\n    return high\n',
      stray: '',
    });
    try {
      const layers: Layer[] = [
        { name: 'L0', modules: ['low'] },
        { name: 'L1', modules: ['mid'] },
        { name: 'L2', modules: ['high', 'peer', 'ghost'] },
        { name: 'L3', modules: ['top'], lazy: true },
      ];
      assert.deepEqual(checkLayers(importGraph(dir), layers).sort(), [
        'ghost is in the table but not in the package',
        'high:3 imports the private name mid._hidden',
        'high:7 imports dynamically',
        'low:1 imports high of layer L2, not below its own (L0)',
        'mid:6 imports low inside a function or class',
        'peer:1 imports high of layer L2, not below its own (L2)',
        'stray is in no layer: add it to the table',
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('passes a planted package that keeps to its table', () => {
    const dir = plant({
      low: 'import os\n\nX = os.sep\n',
      mid: 'from . import low\nfrom .low import X\n',
      top: 'from . import mid\n\n\ndef main():\n    from . import low\n    return low, mid\n',
    });
    try {
      const g = importGraph(dir);
      assert.equal(g.imports.length, 4);
      const layers: Layer[] = [
        { name: 'L0', modules: ['low'] },
        { name: 'L1', modules: ['mid'] },
        { name: 'L2', modules: ['top'], lazy: true },
      ];
      assert.deepEqual(checkLayers(g, layers), []);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
