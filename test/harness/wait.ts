// The one poll-until helper, used by the harness, the integration tests and the benchmarks.

export interface WaitOptions {
  /** Give up after this many milliseconds (default 30 s). */
  timeoutMs?: number;
  /** Pause between attempts (default 250 ms). */
  intervalMs?: number;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Calls `check` until it returns a value other than undefined, null or false,
 * and returns that value; `what` names the wait in the timeout error. Errors
 * thrown by `check` count as "not yet"; the last one is quoted when the wait
 * times out.
 */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  options: WaitOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const intervalMs = options.intervalMs ?? 250;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== null && value !== false) return value;
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const detail = lastError === undefined ? "" : `; last error: ${errorMessage(lastError)}`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail}`);
    }
    await sleep(Math.min(intervalMs, Math.max(0, deadline - Date.now())));
  }
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
