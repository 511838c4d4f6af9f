// Types for suiteRunner.mjs (used from the runner's tests).
export const RESULT_LINE: RegExp;
export interface Suite {
  name: string;
  cmd: string;
  args: string[];
  env?: Record<string, string | undefined>;
  cwd?: string;
  timeoutMs?: number;
  exitAfterResultMs?: number;
}
export interface SuiteResult { passed: number; failed: number; skipped: number; code: number; failures: string[] }
export function runSuite(suite: Suite, opts?: { log?: (line: string) => void; output?: (chunk: Buffer) => void; errors?: (chunk: Buffer) => void; graceMs?: number }): Promise<SuiteResult>;
export function interrupted(): string | undefined;
