// Kubernetes API failures as the provision loop's kinds. A listing that fails is an error,
// never "no pods" (leak invariant 3).
import { ProviderError } from '../provider';

interface ApiFailure {
  code?: number;
  body?: unknown;
  message?: string;
}

function statusMessage(body: unknown): string | undefined {
  if (typeof body === 'string') {
    try {
      return statusMessage(JSON.parse(body));
    } catch {
      return body.slice(0, 300);
    }
  }
  const m = (body as { message?: unknown } | null)?.message;
  return typeof m === 'string' ? m : undefined;
}

export function kubeError(e: unknown, what: string): ProviderError {
  if (e instanceof ProviderError) return e;
  const f = e as ApiFailure;
  const msg = `${what}: ${statusMessage(f.body) ?? f.message ?? String(e)}`;
  switch (f.code) {
    case 401:
      return new ProviderError('auth', msg, 'the kubeconfig\'s credentials were refused: refresh them (or pick another context)');
    case 403:
      if (/exceeded quota/i.test(msg)) return new ProviderError('quota', msg, 'a ResourceQuota in the namespace is full');
      return new ProviderError('auth', msg, 'your Kubernetes user lacks a permission (RBAC): "skydeck check" lists what is missing');
    case 404:
      return new ProviderError('config', msg, 'check the context and namespace (kubernetes.namespace)');
    case 400:
    case 422:
      return new ProviderError('config', msg);
    default:
      return new ProviderError('transient', msg);
  }
}

export function isNotFound(e: unknown): boolean {
  return (e as ApiFailure)?.code === 404;
}

export function isConflict(e: unknown): boolean {
  return (e as ApiFailure)?.code === 409;
}
