/**
 * The endpoint of the host-call link (`hostLink.ts` in src/protocol): the
 * small postMessage-like interface both ends speak, so the same link runs on
 * a MessagePort (the page and its worker, the page and the extension's
 * content script) and on a `chrome.runtime` Port (the content script and the
 * service worker), and on an in-memory pair in tests.
 */

/** One end of a message channel. */
export interface LinkEndpoint {
  /** Sends one message (and transfers `transfer`, where the channel can). */
  post(message: unknown, transfer?: Transferable[]): void;
  /** Set by the link: every message that arrives, unparsed. */
  onmessage: ((data: unknown) => void) | null;
  /**
   * Set by the link: a message `post` accepted but could not send later (an
   * endpoint that batches, `linkBatch.ts`, posts at the end of the turn).
   */
  onunsent?: ((message: unknown) => void) | null;
  /** Closes this end. */
  close(): void;
}

/** What a MessagePort offers (a real one, or its Node twin). */
export interface PortLike {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  start?(): void;
  close?(): void;
}

/** A MessagePort as an endpoint, started at once. */
export function portEndpoint(port: PortLike): LinkEndpoint {
  const endpoint: LinkEndpoint = {
    post: (message, transfer) => (transfer?.length ? port.postMessage(message, transfer) : port.postMessage(message)),
    onmessage: null,
    close: () => port.close?.(),
  };
  port.addEventListener('message', (event) => endpoint.onmessage?.(event.data));
  port.start?.();
  return endpoint;
}
