/**
 * A CDP session on a page's dedicated worker (the bridge worker), for the
 * call-path profile. Playwright opens CDP sessions on pages and frames only,
 * so this attaches through the page's own session (`Target.setAutoAttach`,
 * unflattened) and speaks to the worker with `Target.sendMessageToTarget`.
 */

/**
 * Attaches to the first dedicated worker of the page behind `cdp` whose URL
 * matches `urlPattern`; resolves with `send(method, params)`.
 * @param {import('playwright-core').CDPSession} cdp
 * @param {RegExp} [urlPattern]
 * @returns {Promise<{ url: string, send: (method: string, params?: object) => Promise<any> }>}
 */
export async function attachWorker(cdp, urlPattern = /./) {
  const pending = new Map();
  let nextId = 1;
  const attached = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no dedicated worker attached within 5 s')), 5_000);
    cdp.on('Target.attachedToTarget', ({ sessionId, targetInfo }) => {
      if (targetInfo.type !== 'worker' || !urlPattern.test(targetInfo.url)) return;
      clearTimeout(timer);
      resolve({ sessionId, url: targetInfo.url });
    });
  });
  cdp.on('Target.receivedMessageFromTarget', ({ message }) => {
    const reply = JSON.parse(message);
    const waiter = pending.get(reply.id);
    if (!waiter) return;
    pending.delete(reply.id);
    if (reply.error) waiter.reject(new Error(`${reply.error.message} (${reply.error.code})`));
    else waiter.resolve(reply.result);
  });
  await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });
  const { sessionId, url } = await attached;
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      cdp
        .send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) })
        .catch(reject);
    });
  return { url, send };
}
