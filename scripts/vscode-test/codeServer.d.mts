// Types for codeServer.mjs (used from the TypeScript UI suites in test/vscode/ui/).
import type { Browser } from 'playwright-core';

export const CODE_SERVER_VERSION: string;
export const CACHE_DIR: string;
export const CHROMIUM_PATH: string;
export const CHROMIUM_ARGS: string[];
export const DEFAULT_SETTINGS: Record<string, unknown>;
export const CONSOLE_MARK: string;

export interface StartOptions {
  bin?: string;
  scratchDir?: string;
  userDataDir?: string;
  extensionsDir?: string;
  /** Extra environment for code-server, and so for its extension hosts. */
  env?: Record<string, string>;
  /** Merged over DEFAULT_SETTINGS into the user settings.json. */
  settings?: Record<string, unknown>;
  log?: (line: string) => void;
  startTimeoutMs?: number;
}

export interface CodeServer {
  readonly port: number;
  readonly origin: string;
  readonly pid: number;
  readonly scratch: string;
  readonly userDataDir: string;
  readonly extensionsDir: string;
  readonly logFile: string;
  remoteUri(path: string): string;
  workbenchUrl(o?: { folder?: string; extensionDevelopmentPath?: string | string[]; extensionTestsPath?: string }): string;
  stop(graceMs?: number): Promise<void>;
  /** Synchronous SIGKILL of the whole tree (also done by a process 'exit' hook). */
  killNow(): void;
  logTail(bytes?: number): string;
}

export function findCodeServer(): string;
export function makeScratchDir(prefix?: string): string;
export function freePort(): Promise<number>;
export function startCodeServer(opts?: StartOptions): Promise<CodeServer>;
export function assertBrowser(): void;
export function launchBrowser(opts?: { headless?: boolean; handleSignals?: boolean }): Promise<Browser>;
export function extensionHostText(text: string): string | null;
export function workbenchLogText(text: string): string;
export function removeScratch(dir: string | undefined, log?: (line: string) => void): void;
