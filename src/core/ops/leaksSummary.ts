import type { SweepResult, SweptAccount, UnknownPart } from '../provision';

// Words for a leak sweep's summary, shared by the CLI and the editor so both say the same:
// what was looked at, and — never folded into "none" — what could not be (invariant 8).

const NOUN: Record<string, string> = { aws: 'account', gcp: 'project', azure: 'subscription' };

function accountText(cloud: string, account?: string): string {
  return account ? `${cloud} ${NOUN[cloud] ?? 'account'} ${account}` : cloud;
}

/** "aws eu-west-1 (account 123…)", "gcp project p", "azure". */
export function unknownPartLabel(p: UnknownPart): string {
  if (!p.region) return accountText(p.cloud, p.account);
  return `${p.cloud} ${p.region}${p.account ? ` (${NOUN[p.cloud] ?? 'account'} ${p.account})` : ''}`;
}

/** "aws account 123 (17 regions)". */
export function sweptLabel(s: SweptAccount): string {
  const n = s.listed.length;
  const where = n === 1 ? s.listed[0] : `${n} regions/zones`;
  return `${accountText(s.cloud, s.account)} (${where})`;
}

/** One line per unknown part, with why. */
export function unknownLines(r: SweepResult): string[] {
  return r.errors.map((p) => `${unknownPartLabel(p)}: ${p.message}`);
}

/**
 * The verdict on one list of leaks: "none" only when everything was listed; otherwise the
 * count found plus the parts that are unknown.
 */
export function leakVerdict(found: number, r: SweepResult): string {
  if (!r.errors.length) return found ? `${found} found` : 'none';
  const parts = [...new Set(r.errors.map(unknownPartLabel))].join(', ');
  return `${found ? `${found} found` : 'none found'} where listed; UNKNOWN in ${parts} (could not be listed)`;
}
