import { GRACE_SECONDS_MAX, IDLE_MINUTES_MAX, JOB_ID_MAX, RANK_MAX } from '../core/jobs/limits';
import { UsageError } from './args';

// Numeric arguments, parsed from their decimal text: a value is compared as a BigInt before it
// becomes a number, so nothing out of range is rounded into range (9007199254740993 is not
// read as ...992) and nothing huge reaches the agent.

function wholeNumber(text: string, what: string, lo: number, hi: number): number {
  if (!/^[0-9]+$/.test(text)) throw new UsageError(`${what} ${JSON.stringify(text)} is not a whole number (${lo}-${hi})`);
  const v = BigInt(text);
  if (v < BigInt(lo) || v > BigInt(hi)) throw new UsageError(`${what} ${text} is out of range (${lo}-${hi})`);
  return Number(v);
}

export function parseJobId(text: string): number {
  return wholeNumber(text, 'job id', 1, JOB_ID_MAX);
}

export function parseRank(text: string): number {
  return wholeNumber(text, '--rank', 0, RANK_MAX);
}

export function parseIdleMinutes(text: string): number {
  return wholeNumber(text, '--idle-minutes', 0, IDLE_MINUTES_MAX);
}

/** Seconds, plain decimal ("10", "2.5"); no exponents, signs or words. */
export function parseGraceSeconds(text: string): number {
  if (!/^[0-9]{1,6}(\.[0-9]{1,3})?$/.test(text)) {
    throw new UsageError(`--grace ${JSON.stringify(text)} is not a number of seconds (0-${GRACE_SECONDS_MAX}, e.g. 10 or 2.5)`);
  }
  const v = Number(text);
  if (v > GRACE_SECONDS_MAX) throw new UsageError(`--grace ${text} is out of range (0-${GRACE_SECONDS_MAX} seconds)`);
  return v;
}

/** A flag's single value (parseArgs gives strings for value flags). */
export function flagText(v: string | boolean | string[] | undefined): string | undefined {
  return v === undefined ? undefined : String(v);
}
