// The user's kubeconfig and one API client per context. Credentials stay in the kubeconfig's
// own chain (client certs, tokens, exec plugins): Skydeck names a context, never copies keys.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { ProviderError } from '../provider';

/**
 * What the kubeconfig is read from, with each file's identity: a long-lived process (the editor,
 * a test run whose cluster was recreated) reads it again once it changed, never a stale server.
 */
function sourceStamp(kubeconfig: string | undefined): string {
  const env = process.env.KUBECONFIG;
  const files = kubeconfig ? [kubeconfig] : env ? env.split(path.delimiter).filter(Boolean) : [path.join(os.homedir(), '.kube', 'config')];
  return [env ?? '', ...files.map((f) => {
    const st = fs.statSync(f, { throwIfNoEntry: false });
    return st ? `${f}:${st.ino}:${st.size}:${st.mtimeMs}` : `${f}:-`;
  })].join('|');
}

export interface KubeTarget {
  context: string;
  namespace: string;
}

export interface KubeClients {
  kc: k8s.KubeConfig;
  core: k8s.CoreV1Api;
  authz: k8s.AuthorizationV1Api;
  rbac: k8s.RbacAuthorizationV1Api;
}

export class KubeApi {
  private readonly byContext = new Map<string, KubeClients>();
  private base: k8s.KubeConfig | undefined;
  private stamp: string | undefined;

  constructor(private readonly opts: { kubeconfig?: string; namespace?: string; allowedContexts?: string[]; configFile?: string } = {}) {}

  /** The loaded kubeconfig (KUBECONFIG, else ~/.kube/config); a missing one is a config error. */
  config(): k8s.KubeConfig {
    const stamp = sourceStamp(this.opts.kubeconfig);
    if (stamp !== this.stamp) {
      this.base = undefined;
      this.byContext.clear();
    }
    if (!this.base) {
      const kc = new k8s.KubeConfig();
      try {
        if (this.opts.kubeconfig) kc.loadFromFile(this.opts.kubeconfig);
        else kc.loadFromDefault();
      } catch (e) {
        throw new ProviderError('config', `could not read the kubeconfig: ${(e as Error).message}`, 'set KUBECONFIG or write ~/.kube/config');
      }
      if (!kc.getContexts().length) throw new ProviderError('config', 'the kubeconfig has no contexts', 'set KUBECONFIG to a kubeconfig with at least one context');
      this.base = kc;
      this.stamp = stamp;
    }
    return this.base;
  }

  /**
   * The context a cluster uses: the one named (infra: k8s/<context>), else the current one, or
   * with kubernetes.allowed_contexts the current one if allowed, else the first allowed.
   */
  target(context?: string): KubeTarget {
    const kc = this.config();
    const allowed = this.opts.allowedContexts;
    const current = kc.getCurrentContext();
    const name = context ?? (allowed && !allowed.includes(current) ? allowed[0] : current);
    const ctx = kc.getContextObject(name);
    if (!ctx) throw new ProviderError('config', `the kubeconfig has no context "${name}"`, `contexts: ${kc.getContexts().map((c) => c.name).join(', ')}`);
    return { context: name, namespace: this.opts.namespace ?? ctx.namespace ?? 'default' };
  }

  /** Whether check and launch may use this context (kubernetes.allowed_contexts). */
  allowed(context: string): boolean {
    return !this.opts.allowedContexts || this.opts.allowedContexts.includes(context);
  }

  /** A launch into a context the config does not allow is refused before anything is made. */
  requireAllowed(context: string): void {
    if (this.allowed(context)) return;
    throw new ProviderError('config', `context "${context}" is not in kubernetes.allowed_contexts (${this.opts.allowedContexts!.join(', ')})`,
      `use one of them (infra: k8s/<context>), or add it to kubernetes.allowed_contexts in ${this.opts.configFile ?? 'the Skydeck config'}`);
  }

  /** The API server a context points at: the "account" a cluster row records (leak invariant 7). */
  server(context: string): string {
    const kc = this.config();
    const ctx = kc.getContextObject(context);
    const cluster = ctx ? kc.getCluster(ctx.cluster) : null;
    if (!cluster) throw new ProviderError('config', `context "${context}" names no cluster in the kubeconfig`);
    return cluster.server;
  }

  clients(context: string): KubeClients {
    this.config(); // drops the clients of a kubeconfig that changed since
    let c = this.byContext.get(context);
    if (!c) {
      this.target(context);
      const kc = new k8s.KubeConfig();
      kc.loadFromString(this.config().exportConfig());
      kc.setCurrentContext(context);
      c = { kc, core: kc.makeApiClient(k8s.CoreV1Api), authz: kc.makeApiClient(k8s.AuthorizationV1Api), rbac: kc.makeApiClient(k8s.RbacAuthorizationV1Api) };
      this.byContext.set(context, c);
    }
    return c;
  }
}
