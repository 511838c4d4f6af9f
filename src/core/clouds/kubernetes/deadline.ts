// Every API call of the provider has a deadline. The client library does not set one, and a
// connection reset by something between us and the API server (a proxy, a load balancer) was
// seen to leave a listing unanswered for good (test/unit/provision/kubernetesFaults.test.ts):
// a refresh, a down or a sweep must end with an error instead.

export const API_DEADLINE_MS = 30_000;

export async function withDeadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from the API server within ${Math.round(ms / 100) / 10} s (${what})`)), ms);
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}
