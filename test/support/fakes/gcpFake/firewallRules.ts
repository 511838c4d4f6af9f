// What GCE checks of a firewall rule's body at insert, patch (on the merged rule) and update,
// the part Skydeck can get wrong: a rule selects its targets (and its sources) either by network
// tags or by service accounts, never both kinds in one rule (VPC firewall rules: "you cannot mix
// and match service accounts and network tags in any firewall rule"), and one rule names at most
// ten target service accounts.
import { invalid } from './bodies';
import type { Json } from './model';

const listOf = (r: Json, k: string) => ((r[k] ?? []) as unknown[]);

export function checkFirewall(rule: Json): void {
  const tags = ['targetTags', 'sourceTags'].filter((k) => listOf(rule, k).length);
  const accounts = ['targetServiceAccounts', 'sourceServiceAccounts'].filter((k) => listOf(rule, k).length);
  if (tags.length && accounts.length) {
    throw invalid(`Invalid value for field 'resource.${accounts[0]}': '${String(listOf(rule, accounts[0])[0])}'. Cannot use service accounts and network tags (${tags.join(', ')}) in the same firewall rule.`);
  }
  if (listOf(rule, 'targetServiceAccounts').length > 10) throw invalid("Invalid value for field 'resource.targetServiceAccounts': too many service accounts (at most 10).");
}
