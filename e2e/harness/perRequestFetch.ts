/**
 * A `fetch` for the SDK's Streamable HTTP client that gives every request its
 * own AbortSignal. The SDK passes one shared signal to every request; on Node 20
 * undici keeps a listener on it per request, and past ~1,500 requests Node
 * prints MaxListenersExceededWarning. Here the shared signal gets one listener,
 * which aborts whichever requests are still running; a request leaves that set
 * when its response body ends or is cancelled.
 */

/** The SDK's `fetch` option type. */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** Wraps `fetch` (default: the global one) as described in the module comment. */
export function perRequestSignalFetch(base: FetchLike = fetch): FetchLike {
  const running = new Set<AbortController>();
  const watched = new WeakSet<AbortSignal>();
  const watch = (shared: AbortSignal): void => {
    if (watched.has(shared)) return;
    watched.add(shared);
    shared.addEventListener(
      'abort',
      () => {
        for (const controller of running) controller.abort(shared.reason);
        running.clear();
      },
      { once: true },
    );
  };

  return async (url, init = {}) => {
    const shared = init.signal;
    if (!shared) return base(url, init);
    if (shared.aborted) throw shared.reason;
    watch(shared);
    const own = new AbortController();
    running.add(own);
    const done = (): void => {
      running.delete(own);
    };
    try {
      return untilBodyEnds(await base(url, { ...init, signal: own.signal }), done);
    } catch (error) {
      done();
      throw error;
    }
  };
}

/** The same response, calling `done` once its body has ended, failed or been cancelled. */
function untilBodyEnds(response: Response, done: () => void): Response {
  if (!response.body) {
    done();
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done: end } = await reader.read();
        if (end) {
          done();
          controller.close();
        } else {
          controller.enqueue(value);
        }
      } catch (error) {
        done();
        controller.error(error);
      }
    },
    cancel(reason) {
      done();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
