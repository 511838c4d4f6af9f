// Types for testSuites.mjs (used from the runner's tests).
import type { Suite } from './suiteRunner.mjs';
export function testSuites(o: { ci: boolean; env?: Record<string, string | undefined> }): Suite[];
export function mochaAlone(ci: boolean): string[];
