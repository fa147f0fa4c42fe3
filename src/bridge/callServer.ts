/**
 * The page's end of the call port (see `callPort.ts`): runs each call through
 * the host SDK on the main thread with the scope its key names, keeping one
 * AbortController per call so a `cancel` reaches the SDK's signal, and posts
 * the outcome (and any progress) back by id.
 */
import type { SessionOutcome, TerminalHost } from '../sdk/types.js';
import { pageDefect } from './pageError.js';
import type { CallPortAnswer, CallPortEnd, CallPortRequest, CallScope } from './callPort.js';

function internalError(message: string): SessionOutcome {
  return { ok: false, error: pageDefect(message) };
}

const UNKNOWN_SCOPE = 'The bridge sent a call without its scope; this is a defect of the bridge.';
const NOT_CLONEABLE = 'The page answered with a value that cannot be sent to the bridge; this is a defect of the host.';
const FAILED = 'The page failed while handling this request; this is a defect of the host SDK.';

/** Serves the call port with `host` until the returned function is called. */
export function serveCalls(host: Pick<TerminalHost, 'handle'>, port: CallPortEnd<CallPortAnswer>): () => void {
  const scopes = new Map<number, CallScope>();
  const controllers = new Map<string, AbortController>();
  const answer = (id: string, outcome: SessionOutcome): void => {
    try {
      port.postMessage({ t: 'result', id, outcome });
    } catch {
      port.postMessage({ t: 'result', id, outcome: internalError(NOT_CLONEABLE) });
    }
  };
  const run = async (message: Extract<CallPortRequest, { t: 'call' }>, scope: CallScope): Promise<void> => {
    const { id, deadlineMs, op } = message;
    const controller = new AbortController();
    controllers.set(id, controller);
    const progress = (value: number, total?: number): void =>
      port.postMessage({ t: 'progress', id, progress: value, total });
    try {
      answer(id, await host.handle({ id, ...scope, deadlineMs, op }, { signal: controller.signal, progress }));
    } catch {
      answer(id, internalError(FAILED));
    } finally {
      controllers.delete(id);
    }
  };
  const receive = (event: { data: unknown }): void => {
    const message = event.data as CallPortRequest;
    switch (message?.t) {
      case 'scope':
        return void scopes.set(message.key, message.scope);
      case 'drop':
        return void scopes.delete(message.key);
      case 'cancel':
        return controllers.get(message.id)?.abort(new Error('The MCP client cancelled this request.'));
      case 'call': {
        const scope = scopes.get(message.key);
        if (scope) return void run(message, scope);
        return answer(message.id, internalError(UNKNOWN_SCOPE));
      }
    }
  };
  port.addEventListener('message', receive);
  port.start?.();
  return () => {
    port.removeEventListener?.('message', receive);
    for (const controller of controllers.values()) controller.abort(new Error('The bridge stopped.'));
    controllers.clear();
    scopes.clear();
  };
}
