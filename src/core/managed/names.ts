// A managed job's name becomes part of its clusters' names (`<name>-mj<id>-<k>`), so it
// follows the cluster name rule (state/clusterName.ts), shortened to leave room for the suffix.
const MAX = 40;

export function jobNameOf(wanted: string | undefined): string {
  let s = (wanted ?? '').replace(/[^-_.a-zA-Z0-9]+/g, '-').slice(0, MAX);
  if (!/^[a-zA-Z]/.test(s)) s = `job${s ? `-${s}` : ''}`.slice(0, MAX);
  return s.replace(/[-_.]+$/, '') || 'job';
}
