// Types for install.mjs (used from runTests.ts and bench/ui.ts).
export function canInstallCodeServer(): boolean;
export function ensureCodeServer(): Promise<string>;
