/**
 * Sample messages of the cluster bus (SPEC §14) for tests: a forwarded call's
 * request as a forwarding node publishes it to the owner's inbox, with the
 * shape `InboxMessageSchema` accepts.
 */
import { DEFAULT_LIMITS, relayLimitsOf } from '../protocol/index.js';

/** A forwarded `tradescript_call` of `desk.echo` from node `from`, under request id `id`. */
export function forwardedCallRequest(id: string, from: string, args: unknown[] = ['x'], deadlineMs = 30_000) {
  return {
    t: 'request' as const,
    id,
    from,
    principal: 'desk-1',
    sessionId: 's_7vMptzLZPEp0FvNj',
    attachment: { attachmentId: 'a_ZB8gn2xzBXOA1Xj6', namespace: 'ns_kl3QludBpDGHUXGkUq4uFQ' },
    info: { clientName: 'client', transport: 'http' },
    op: {
      kind: 'call',
      call: {
        target: { scope: 'session' },
        controlId: 'desk.echo',
        args,
        operationId: 'gen-1',
        callerOperationId: false,
      },
    },
    adapter: { maxAccess: 'write', allowControls: null },
    limits: relayLimitsOf(DEFAULT_LIMITS),
    deadlineMs,
    progress: false,
  };
}
