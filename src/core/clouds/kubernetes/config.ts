// The `kubernetes:` section of the user's Skydeck config (~/.skydeck/config.yaml, or
// $SKYDECK_CONFIG), keyed as SkyPilot names it. The file is the user's, but a pod_config can
// widen what a pod may touch, so every key is checked when read: a bad value is an error
// naming the file and key, never ignored.
import * as fs from 'node:fs';
import YAML from 'yaml';
import { ProviderError } from '../provider';
import { defaultConfigFile } from '../../managed/remote/setting';
import { checkPodConfig, type PodConfig } from './podConfig';
import { AUTOSCALER_LABELS } from './gpuLabels';

export interface KubeFileConfig {
  /** Overrides the context's namespace. */
  namespace?: string;
  /** The only contexts check, launch and the default choice may use; undefined = all. */
  allowedContexts?: string[];
  podConfig?: PodConfig;
  /** kubernetes.autoscaler: gke | karpenter | coreweave | generic. */
  autoscaler?: string;
  /** Where it came from, for messages. */
  file: string;
}

/** A DNS-1123 label, as Kubernetes requires of a namespace name. */
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const KEYS = new Set(['namespace', 'allowed_contexts', 'pod_config', 'allow_host_namespaces', 'autoscaler']);

function bad(file: string, key: string, why: string): ProviderError {
  return new ProviderError('config', `${file}: kubernetes.${key}: ${why}`, `fix or remove kubernetes.${key} in ${file}`);
}

export function readKubeFileConfig(file = defaultConfigFile()): KubeFileConfig {
  if (!fs.existsSync(file)) return { file };
  let doc: unknown;
  try {
    doc = YAML.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ProviderError('config', `${file}: not valid YAML: ${(e as Error).message}`);
  }
  const k = doc && typeof doc === 'object' ? (doc as Record<string, unknown>).kubernetes : undefined;
  if (k === undefined || k === null) return { file };
  if (typeof k !== 'object' || Array.isArray(k)) throw new ProviderError('config', `${file}: kubernetes: must be a mapping`);
  const s = k as Record<string, unknown>;
  for (const key of Object.keys(s)) if (!KEYS.has(key)) throw bad(file, key, `unknown key (known: ${[...KEYS].join(', ')})`);
  const out: KubeFileConfig = { file };
  if (s.namespace !== undefined) {
    if (typeof s.namespace !== 'string' || !NAMESPACE.test(s.namespace)) throw bad(file, 'namespace', `${JSON.stringify(s.namespace)} is not a namespace name (lowercase letters, digits and -, at most 63)`);
    out.namespace = s.namespace;
  }
  if (s.allowed_contexts !== undefined) {
    const l = s.allowed_contexts;
    if (!Array.isArray(l) || !l.length || l.some((c) => typeof c !== 'string' || !c.trim())) throw bad(file, 'allowed_contexts', 'must be a non-empty list of context names');
    out.allowedContexts = l as string[];
  }
  if (s.autoscaler !== undefined) {
    const names = Object.keys(AUTOSCALER_LABELS);
    if (typeof s.autoscaler !== 'string' || !names.includes(s.autoscaler)) throw bad(file, 'autoscaler', `${JSON.stringify(s.autoscaler)} is not one of ${names.join(', ')}`);
    out.autoscaler = s.autoscaler;
  }
  if (s.allow_host_namespaces !== undefined && typeof s.allow_host_namespaces !== 'boolean') throw bad(file, 'allow_host_namespaces', 'must be true or false');
  if (s.pod_config !== undefined) {
    const r = checkPodConfig(s.pod_config, s.allow_host_namespaces === true);
    if ('refused' in r) throw bad(file, `pod_config${r.at}`, r.refused);
    out.podConfig = r.ok;
  }
  return out;
}
