// GCP labels carry Skydeck's tags. Label keys and values must be lowercase [a-z0-9_-]
// (international letters allowed, not used here), at most 63 characters, keys starting with
// a letter. Skydeck's three tag keys already comply. Values are mapped:
//   lowercased; any other character becomes "-"; cut to 63 characters.
// The uid (a lowercase UUID) and the workspace id (8 hex) survive unchanged, so filters by
// them are exact; a cluster name like "My.Run" becomes "my-run". The exact tags are also
// kept in the instance metadata item "skydeck-tags" (JSON), which is what Skydeck reads back.

export const TAGS_METADATA_KEY = 'skydeck-tags';

export function labelValue(v: string): string {
  return v.toLowerCase().replace(/[^a-z0-9_-]/g, '-').slice(0, 63);
}

export function labelKey(k: string): string {
  const s = k.toLowerCase().replace(/[^a-z0-9_-]/g, '-').slice(0, 63);
  return /^[a-z]/.test(s) ? s : `k${s}`.slice(0, 63);
}

export function toLabels(tags: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(tags)) out[labelKey(k)] = labelValue(v);
  return out;
}

/** The instance's tags: the exact ones from metadata when readable, else its labels. */
export function tagsFrom(labels: Record<string, string> | null | undefined, metadataJson: string | null | undefined): Record<string, string> {
  const base = { ...(labels ?? {}) };
  if (!metadataJson) return base;
  try {
    const exact = JSON.parse(metadataJson) as Record<string, unknown>;
    for (const [k, v] of Object.entries(exact)) if (typeof v === 'string') base[k] = v;
  } catch {
    // Someone edited the metadata by hand: the labels still identify the instance.
  }
  return base;
}

/** A GCP filter expression matching instances whose label `key` equals `value` (or exists, with "*"). */
export function labelFilter(key: string, value: string | typeof ANY_VALUE): string {
  // labelValue leaves only [a-z0-9_-]: no quote, wildcard or operator reaches the filter.
  return value === ANY_VALUE ? `labels.${labelKey(key)}:*` : `labels.${labelKey(key)} = "${labelValue(value)}"`;
}

/** "The label exists" for labelFilter: a symbol, so no string (a uid of "*") can mean it. */
export const ANY_VALUE: unique symbol = Symbol('any label value');
