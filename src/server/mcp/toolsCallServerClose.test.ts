/**
 * `ToolsCallServer._onclose` against the SDK's `Server._onclose`: the same
 * teardown in the same order, with the same errors (class, code, message,
 * data), over generated states of in-flight requests, waiting outbound
 * requests and `onclose` callbacks. The one difference allowed: with no
 * outbound request waiting, the `ConnectionClosed` error has no stack frames.
 */
import fc from 'fast-check';
import { SdkError, Server } from '@modelcontextprotocol/server';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ToolsCallServer } from './toolsCallServer.js';

interface Seam {
  _onclose(): void;
  _requestHandlerAbortControllers: Map<unknown, AbortController>;
  _responseHandlers: Map<unknown, (response: unknown) => void>;
}

type Listener = 'none' | 'record' | 'makes-error';
type OnClose = 'none' | 'record' | 'makes-error' | 'throws' | 'replaces-itself' | 'accessor';

const hasFrames = (error: unknown) => error instanceof Error && (error.stack ?? '').split('\n').length > 1;

function describeError(error: unknown, withFrames: boolean): unknown {
  if (!(error instanceof Error)) return { notAnError: error };
  const e = error as Error & { code?: unknown; data?: unknown };
  return {
    sdk: error instanceof SdkError,
    name: e.name,
    code: e.code,
    message: e.message,
    data: e.data,
    first: (e.stack ?? '').split('\n')[0],
    ...(withFrames && { frames: hasFrames(error) }),
  };
}

/** Closes a server of `kind` in the generated state; returns what was seen, in order. */
function close(kind: 'sdk' | 'ours', listeners: Listener[], waiting: number, onClose: OnClose): unknown[] {
  const server =
    kind === 'sdk' ? new Server({ name: 't', version: '0' }) : new ToolsCallServer({ name: 't', version: '0' });
  const seam = server as unknown as Seam;
  const log: unknown[] = [];
  listeners.forEach((listener, id) => {
    const controller = new AbortController();
    if (listener !== 'none')
      controller.signal.addEventListener('abort', () => {
        // Frames of the reason are compared only when an outbound request was waiting (see the file's comment).
        log.push(['abort', id, describeError(controller.signal.reason, waiting > 0)]);
        if (listener === 'makes-error') log.push(['listener error has frames', hasFrames(new Error('x'))]);
      });
    seam._requestHandlerAbortControllers.set(id, controller);
  });
  for (let id = 0; id < waiting; id += 1)
    seam._responseHandlers.set(`out-${id}`, (error) => log.push(['outbound', id, describeError(error, true)]));
  if (onClose === 'accessor') chainOnclose(server, log);
  else if (onClose !== 'none')
    server.onclose = function onclose(this: unknown) {
      log.push(['onclose', this === server]);
      if (onClose === 'makes-error') log.push(['onclose error has frames', hasFrames(new Error('y'))]);
      if (onClose === 'replaces-itself') server.onclose = () => undefined;
      if (onClose === 'throws') throw new Error('onclose');
    };
  const before = Error.stackTraceLimit;
  try {
    seam._onclose();
    log.push(['returned']);
  } catch (error) {
    log.push(['threw', describeError(error, true)]);
  }
  log.push(['limit kept', Error.stackTraceLimit === before, 'after', hasFrames(new Error('z'))]);
  log.push(['onclose now', server.onclose === undefined ? 'none' : typeof server.onclose]);
  log.push(['in flight left', seam._requestHandlerAbortControllers.size, 'waiting left', seam._responseHandlers.size]);
  return log;
}

/** `onclose` as createMcpServer's chainHook makes it: an accessor running ours, then whatever was set. */
function chainOnclose(server: Server, log: unknown[]): void {
  let theirs: (() => void) | undefined;
  Object.defineProperty(server, 'onclose', {
    configurable: true,
    get: () => () => {
      log.push(['ours', hasFrames(new Error('o'))]);
      theirs?.();
    },
    set: (handler: (() => void) | undefined) => {
      theirs = handler;
    },
  });
  server.onclose = () => log.push(['theirs']);
}

describe('issue 15 a closing server builds its ConnectionClosed error without a stack only where no one waits', () => {
  it('SPEC §13 ToolsCallServer closes exactly as the SDK Server, over generated in-flight and waiting requests', () => {
    const listener = fc.constantFrom<Listener>('none', 'record', 'makes-error');
    const onClose = fc.constantFrom<OnClose>('none', 'record', 'makes-error', 'throws', 'replaces-itself', 'accessor');
    fc.assert(
      fc.property(fc.array(listener, { maxLength: 4 }), fc.nat(2), onClose, (listeners, waiting, how) => {
        const sdk = close('sdk', listeners, waiting, how);
        const ours = close('ours', listeners, waiting, how);
        expect(ours).toEqual(sdk);
        return isDeepStrictEqual(ours, sdk);
      }),
      { numRuns: 3000 },
    );
  });

  it('the error of a stateless close has no frames; the SDK’s has', () => {
    const reasons = (['sdk', 'ours'] as const).map((kind) => {
      const server =
        kind === 'sdk' ? new Server({ name: 't', version: '0' }) : new ToolsCallServer({ name: 't', version: '0' });
      const controller = new AbortController();
      (server as unknown as Seam)._requestHandlerAbortControllers.set(1, controller);
      (server as unknown as Seam)._onclose();
      return controller.signal.reason as Error;
    });
    expect(reasons.map((r) => r instanceof SdkError)).toEqual([true, true]);
    expect(reasons.map(hasFrames)).toEqual([true, false]);
  });
});
