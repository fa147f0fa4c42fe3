/**
 * Test support: a bounded wait. Polls `predicate` on the event loop and
 * rejects after `timeoutMs` naming what it waited for; never asserts a time.
 */

/** Resolves once `predicate` holds; rejects after `timeoutMs` with `what()` in the message. */
export async function waitUntil(
  predicate: () => boolean,
  timeoutMs: number,
  what: () => string = () => 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what()}.`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Races `promise` against a bounded wait; rejects naming `what` when it does not settle in time. */
export async function within<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${timeoutMs} ms.`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
