/**
 * The page's end of the host-call link with requests (`hostLink.ts` in
 * src/protocol), for the extension, whose requests reach the page over the
 * link: what `PageHostLink` serves (bindings, captures, locations), and the
 * host SDK requests. Each running call has one entry (its abort, so a
 * `cancel` reaches the SDK, and its progress sink); the scopes the bridge
 * defined are kept by key.
 */
import type { HostLinkScope } from '../../protocol/wire/hostLink.js';
import type { SessionOutcome } from '../../sdk/types.js';
import { pageDefect } from '../page/pageError.js';
import { LazyAbort } from '../relay/lazyAbort.js';
import { PageHostLink, type LinkCallMessage } from './pageHostLink.js';

const UNKNOWN_SCOPE = 'The bridge sent a call without its scope; this is a defect of the bridge.';
const NOT_CLONEABLE = 'The page answered with a value that cannot be sent to the bridge; this is a defect of the host.';
const FAILED = 'The page failed while handling this request; this is a defect of the host SDK.';

const failure = (message: string): SessionOutcome => ({ ok: false, error: pageDefect(message) });

/**
 * One call running on the page, and its hooks into the host SDK: its abort
 * (the SDK listens with `onAbort`; a signal is made only if a control reads
 * one) and its progress sink.
 */
class RunningCall extends LazyAbort {
  constructor(
    private readonly link: { post(message: unknown): boolean },
    readonly id: string,
  ) {
    super();
  }
  readonly progress = (progress: number, total?: number): void => {
    this.link.post({ t: 'progress', id: this.id, progress, total });
  };
}

/** Serves one link's requests, bindings, captures and locations for one host until it is closed. */
export class PageCallLink<Other extends { t: string } = never> extends PageHostLink<Other> {
  private readonly scopes = new Map<number, HostLinkScope>();
  private readonly running = new Map<string, RunningCall>();

  override reset(): void {
    for (const call of this.running.values()) call.abort(new Error('The host-call link restarted.'));
    this.running.clear();
    this.scopes.clear();
    super.reset();
  }

  protected override serveCall(message: LinkCallMessage): void {
    switch (message.t) {
      case 'scope':
        return void this.scopes.set(message.key, message.scope);
      case 'drop':
        return void this.scopes.delete(message.key);
      case 'call':
        return void this.call(message);
      case 'cancel':
        return this.running.get(message.id)?.abort(new Error('The MCP client cancelled this request.'));
    }
  }

  protected override unsent(message: unknown): void {
    const { t, id } = message as { t?: unknown; id?: unknown };
    if (t === 'result' && typeof id === 'string') this.post({ t: 'result', id, outcome: failure(NOT_CLONEABLE) });
  }

  private async call({ id, key, deadlineMs, op }: Extract<LinkCallMessage, { t: 'call' }>): Promise<void> {
    const scope = this.scopes.get(key);
    if (!scope) return this.answer(id, failure(UNKNOWN_SCOPE));
    const call = new RunningCall(this, id);
    this.running.set(id, call);
    let outcome: SessionOutcome;
    try {
      outcome = await this.host.handle({ id, ...scope, deadlineMs, op }, call);
    } catch {
      outcome = failure(FAILED);
    }
    // A reset in between: the bridge that asked is gone.
    if (this.running.get(id) !== call) return;
    this.running.delete(id);
    this.answer(id, outcome);
  }

  private answer(id: string, outcome: SessionOutcome): void {
    if (!this.post({ t: 'result', id, outcome })) this.post({ t: 'result', id, outcome: failure(NOT_CLONEABLE) });
  }
}
