// The one file others may import eagerly: it loads the Azure module (and with it the SDK) only
// when called. No static import of './index' here, or bundlers would pull the SDK in.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as AzureModule from './index';

let loaded: typeof AzureModule | undefined;

/** The Azure module: dist/clouds/azure.js next to the calling bundle, or the source when unbundled (tests, tsx). */
export function loadAzure(): typeof AzureModule {
  if (!loaded) {
    const bundled = path.join(__dirname, 'clouds', 'azure.js');
    const target = fs.existsSync(bundled) ? bundled : path.join(__dirname, 'index');
    // A computed path: esbuild leaves this require alone instead of inlining the SDK.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    loaded = require(target) as typeof AzureModule;
  }
  return loaded;
}
