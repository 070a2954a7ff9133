/** Waiting in integration tests for something the extension or VS Code does asynchronously. */

/**
 * Polls `get` every `everyMs` until it gives a value other than undefined, null or false, and
 * returns that value.
 * @throws Error("timed out waiting for <what>") after `timeoutMs`.
 */
export async function until<T>(what: string, get: () => T | undefined | Promise<T | undefined>, timeoutMs = 20_000, everyMs = 100): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
