import type { ClustersTreeNode } from './clustersTreeProvider';

type Kind = ClustersTreeNode['kind'];

/**
 * Is `arg` a Clusters-view node of this kind? By the `kind` field, never instanceof: the tree
 * builds nodes in the activation bundle and the commands run from the core chunk, each with its
 * own copy of the classes.
 */
export function isNode<K extends Kind>(arg: unknown, kind: K): arg is Extract<ClustersTreeNode, { kind: K }> {
  return !!arg && typeof arg === 'object' && (arg as { kind?: unknown }).kind === kind;
}
