// Types for testSuites.mjs (used from the runner's tests).
import type { Suite } from './suiteRunner.mjs';
/** A suite of npm test and its lane (lanes run at the same time; run-tests.mjs). */
export interface LaneSuite extends Suite { lane: number }
export function testSuites(o: { ci: boolean; env?: Record<string, string | undefined> }): LaneSuite[];
export const MOCHA_ALL: string[];
export const MOCHA_FIRST: string[];
export function mochaAlone(ci: boolean): string[];
