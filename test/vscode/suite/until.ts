/** Polls `probe` until it returns a value (not undefined), or fails naming what it waited for. */
export async function until<T>(what: string, ms: number, probe: () => T | undefined | Promise<T | undefined>, everyMs = 250): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
