// The one file others may import eagerly: it loads the AWS module (and with it the SDK) only
// when called. No static import of './index' here, or bundlers would pull the SDK in.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as AwsModule from './index';

let loaded: typeof AwsModule | undefined;

/**
 * The AWS module: from the separately bundled dist/clouds/aws.js next to the calling bundle
 * (extension-core.js or cli.js), or from source when running unbundled (tests, tsx).
 */
export function loadAws(): typeof AwsModule {
  if (!loaded) {
    const bundled = path.join(__dirname, 'clouds', 'aws.js');
    const target = fs.existsSync(bundled) ? bundled : path.join(__dirname, 'index');
    // A computed path: esbuild leaves this require alone instead of inlining the SDK.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    loaded = require(target) as typeof AwsModule;
  }
  return loaded;
}
