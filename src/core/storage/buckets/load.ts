// The one way the bucket stores are reached: each store's module (and with it its SDK) loads
// only when a bucket of that store is used, from its own bundle dist/storage/<store>.js next to
// the calling bundle, or from source when running unbundled (tests, tsx). No static import of
// './s3', './gcs' or './azure' here, or the bundler would pull all three SDKs into the core.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as S3Module from './s3';
import type * as GcsModule from './gcs';
import type * as AzureModule from './azure';

interface Modules { s3: typeof S3Module; gcs: typeof GcsModule; azure: typeof AzureModule }

const loaded: Partial<Modules> = {};

export function loadStoreModule<K extends keyof Modules>(name: K): Modules[K] {
  if (!loaded[name]) {
    const bundled = path.join(__dirname, 'storage', `${name}.js`);
    const target = fs.existsSync(bundled) ? bundled : path.join(__dirname, name);
    // A computed path: esbuild leaves this require alone instead of inlining the SDK.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    loaded[name] = require(target) as Modules[K];
  }
  return loaded[name]!;
}
