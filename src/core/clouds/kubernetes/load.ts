// The one file others may import eagerly: it loads the Kubernetes module (and its client
// library) only when called, from dist/clouds/kubernetes.js when bundled, else from source.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as KubeModule from './index';

let loaded: typeof KubeModule | undefined;

export function loadKubernetes(): typeof KubeModule {
  if (!loaded) {
    const bundled = path.join(__dirname, 'clouds', 'kubernetes.js');
    const target = fs.existsSync(bundled) ? bundled : path.join(__dirname, 'index');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    loaded = require(target) as typeof KubeModule;
  }
  return loaded;
}
