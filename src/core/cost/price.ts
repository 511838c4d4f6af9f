// A price always says where it came from and how old it is; a missing one is "unknown" with
// the reason, never 0 (a 0 would read as "free" and hide a billing cluster).

/** USD per hour of one thing (a node, a cluster, a disk), with its provenance. */
export interface Price {
  usdPerHour: number;
  /** "shipped table", "aws catalog (fetched)", "aws DescribeSpotPriceHistory", ... */
  source: string;
  /** ISO date (YYYY-MM-DD) the figure is from: the table's date or the fetch/answer time. */
  asOf: string;
  /**
   * A spot price from Skydeck's shipped table (GCP, Azure: no API Skydeck reads gives them):
   * approximate, so every display marks it ("~$0.41/h").
   */
  shippedSpot?: true;
}

export interface UnknownPrice {
  unknown: string;
}

export type PriceAnswer = Price | UnknownPrice;

export function isKnown(p: PriceAnswer | undefined): p is Price {
  return !!p && 'usdPerHour' in p && Number.isFinite(p.usdPerHour) && p.usdPerHour >= 0;
}

export function isoDate(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

/** The price of `n` of the same thing (nodes of a cluster). */
export function times(p: PriceAnswer, n: number): PriceAnswer {
  return isKnown(p) ? { ...p, usdPerHour: p.usdPerHour * n } : p;
}

/** A sum is known only if every part is; otherwise it says which part is not. */
export function sum(parts: PriceAnswer[]): PriceAnswer {
  const unknown = parts.find((p) => !isKnown(p)) as UnknownPrice | undefined;
  if (unknown) return unknown;
  const known = parts as Price[];
  if (!known.length) return { usdPerHour: 0, source: 'nothing billed', asOf: isoDate(Date.now()) };
  const sources = [...new Set(known.map((p) => p.source))];
  const oldest = known.map((p) => p.asOf).sort()[0];
  const shippedSpot = known.some((p) => p.shippedSpot) ? { shippedSpot: true as const } : {};
  return { usdPerHour: known.reduce((s, p) => s + p.usdPerHour, 0), source: sources.join(' + '), asOf: oldest, ...shippedSpot };
}

/** "$3.06/h", "~$0.92/h" (a shipped spot price: approximate), "unknown". Small figures keep their cents visible. */
export function formatRate(p: PriceAnswer | undefined): string {
  return isKnown(p) ? `${p.shippedSpot ? '~' : ''}$${money(p.usdPerHour)}/h` : 'unknown';
}

/** What the "~" of formatRate means, for the line under a table that shows one. */
export const SHIPPED_SPOT_NOTE = '~ spot price from Skydeck\'s shipped table (approximate; this cloud\'s spot price is not fetched)';

export function formatUsd(usd: number | undefined): string {
  return usd === undefined || !Number.isFinite(usd) ? 'unknown' : `$${money(usd)}`;
}

function money(x: number): string {
  if (x === 0) return '0.00';
  if (x < 0.01) return x.toPrecision(2);
  return x < 100 ? x.toFixed(2) : x.toFixed(0);
}
