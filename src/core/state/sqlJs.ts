import * as fs from 'node:fs';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import type { SqlJsStatic } from 'sql.js';

let loading: Promise<SqlJsStatic> | undefined;

/**
 * Loads the sql.js WASM module once per process. In the bundle the .wasm file sits next to
 * dist/*.js (esbuild copies it); from sources it is found in node_modules.
 */
export function loadSqlJs(): Promise<SqlJsStatic> {
  if (!loading) {
    const bundled = path.join(__dirname, 'sql-wasm.wasm');
    const wasmBinary = fs.existsSync(bundled)
      ? fs.readFileSync(bundled)
      : fs.readFileSync(require.resolve('sql.js/dist/sql-wasm.wasm'));
    loading = initSqlJs({ wasmBinary: wasmBinary as unknown as ArrayBuffer });
  }
  return loading;
}
