/**
 * Table 6, CLUSTER (SPEC §12, §14): one `tradescript_call` of a read through
 * the node that holds the terminal's socket (its owner) against the same call
 * through another node, which forwards it over Redis pub/sub and answers it
 * itself. Two CLI nodes on one real `redis-server`, the vendor fixture
 * terminal in Chromium paired through the owner, one MCP client (HTTP) per
 * node. Target: forwarded p50 ≤ 1.5 × owner p50. Anchors: a bare Redis
 * round trip between two connections by pub/sub (what forwarding uses) and by
 * a stream (XADD + blocking XREAD), measured side by side. With
 * `TRADESCRIPT_BENCH_BIN` the nodes are that build's CLI (before and after a
 * change, run alternately).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measureRoundTrip, runRoundTrips, settle } from '../lib/measure.mjs';
import { roundAll, summarizeTrials, trialStats } from '../lib/stats.mjs';
import { registerTsLoader } from '../lib/typescript.mjs';
import { launchOptions, pairVendorPage, REQUEST_OPTIONS } from '../lib/tradescript.mjs';

const TOKEN = 'bench-cluster-token-0123456789abcdef';

/** @param {import('../run.mjs').TableContext} ctx */
export async function runCluster(ctx) {
  registerTsLoader();
  const { startTestRedis } = await import('../../src/testing/redisServer.ts');
  const { serveClusterPage } = await import('../../e2e/fixtures/cluster/servePage.ts');
  const redis = await startTestRedis();
  const page = await serveClusterPage();
  const dir = mkdtempSync(join(tmpdir(), 'tradescript-bench-cluster-'));
  const tokenFile = join(dir, 'tokens.json');
  writeFileSync(tokenFile, JSON.stringify({ version: 1, tokens: [{ principal: 'bench', token: TOKEN }] }));
  const started = [];
  try {
    const node = async () => {
      const args = ['serve', '--http', '127.0.0.1:0', '--cluster', redis.url, '--token-file', tokenFile];
      const server = await ctx.h.startServer(
        [...args, '--allowed-origin', page.origin, '--log-level', 'warn'],
        launchOptions(),
      );
      started.push(server);
      await waitReady(server.ready.readyUrl);
      return server;
    };
    const owner = await node();
    const other = await node();
    const sessionId = await pairTerminal(ctx, owner, page);
    const byOwner = await ctx.h.connectHttpClient(owner.ready.mcpUrl, { token: TOKEN });
    const byOther = await ctx.h.connectHttpClient(other.ready.mcpUrl, { token: TOKEN });
    const call = (client) => async () => {
      const args = { sessionId, target: { scope: 'session' }, controlId: 'desk.echo', args: ['bench'] };
      const result = await client.callTool({ name: 'tradescript_call', arguments: args }, REQUEST_OPTIONS);
      return result.isError !== true;
    };
    const [own, fwd] = await alternate(ctx, [call(byOwner), call(byOther)]);
    ctx.progress('cluster: Redis anchors');
    const anchors = await redisAnchors(redis.url, ctx.plan);
    await byOwner.close();
    await byOther.close();
    const row = (label, m) => [
      label,
      m.one.p50,
      m.one.p99,
      Math.round(m.one.perSec),
      Math.round(m.many.perSec),
      m.failures,
    ];
    const anchorRow = (label, m) => [label, m.single.p50, m.single.p99, Math.round(m.single.perSec), '', m.failures];
    const ratio = fwd.one.p50 / own.one.p50;
    return {
      header: [
        'tradescript_call of a read',
        'p50 ms',
        'p99 ms',
        'calls/s (1)',
        `calls/s (${ctx.plan.concurrency})`,
        'errors',
      ],
      rows: [
        row('through the owning node', own),
        row('through another node (forwarded)', fwd),
        anchorRow('anchor: Redis pub/sub round trip', anchors.pubsub),
        anchorRow('anchor: Redis stream round trip', anchors.stream),
      ],
      checks: [
        {
          name: 'a call through a non-owning node vs through the owner',
          measured: fwd.one.p50,
          limit: 1.5 * own.one.p50,
          unit: ' ms',
          basis: '1.5 × owner p50',
        },
      ],
      notes: [
        `two CLI nodes on one redis-server, Streamable HTTP clients with a bearer token; forwarding cost ` +
          `(forwarded ÷ owner p50) = ${ratio.toFixed(2)}×; ${ctx.plan.trials} trials each after ` +
          `${ctx.plan.warmup.toLocaleString('en-US')} warm-up calls.`,
      ],
      data: roundAll({ owner: own, forwarded: fwd, ratio, anchors }),
    };
  } finally {
    await Promise.all(started.map((s) => s.close()));
    await page.close();
    await redis.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Warm-up of each path, then trials alternating between them (one in flight,
 * then `concurrency` in flight), so drift and other load hit both alike.
 */
async function alternate(ctx, ops) {
  const p = ctx.plan;
  for (const [i, op] of ops.entries()) {
    ctx.progress(`cluster: warm-up ${i + 1}/${ops.length}`);
    await runRoundTrips(op, p.warmup, 1);
    await runRoundTrips(op, p.concurrentWarmup, p.concurrency);
  }
  const results = ops.map(() => ({ one: [], many: [], failures: 0 }));
  for (let t = 0; t < p.trials; t++) {
    ctx.progress(`cluster: trial ${t + 1}/${p.trials}`);
    for (const [i, op] of ops.entries()) {
      await settle();
      const a = await runRoundTrips(op, p.sequential, 1);
      await settle();
      const b = await runRoundTrips(op, p.concurrent, p.concurrency);
      results[i].one.push(trialStats(a.latencies, a.wallMs));
      results[i].many.push(trialStats(b.latencies, b.wallMs));
      results[i].failures += a.failures + b.failures;
    }
  }
  return results.map((r) => ({ one: summarizeTrials(r.one), many: summarizeTrials(r.many), failures: r.failures }));
}

async function waitReady(readyUrl) {
  const until = Date.now() + 15_000;
  while (Date.now() < until) {
    if (
      (await fetch(readyUrl).then(
        (r) => r.status,
        () => 0,
      )) === 200
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${readyUrl} never ready`);
}

async function pairTerminal(ctx, owner, page) {
  const response = await fetch(owner.ready.mcpUrl.replace(/\/mcp$/, '/pair'), {
    method: 'POST',
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
    body: '{}',
  });
  const { code } = await response.json();
  const tab = await ctx.h.newPage(ctx.browser);
  return pairVendorPage(tab.page, { pageUrl: page.url, relayUrl: owner.ready.relayUrl, code, token: TOKEN });
}

/**
 * A bare request and reply between two "nodes" through Redis, the two ways a
 * forwarded call could travel: pub/sub (each node's inbox a channel) and
 * streams (each node's inbox a stream read with a blocking XREAD).
 */
async function redisAnchors(url, plan) {
  const { Redis } = await import('ioredis');
  const opened = [];
  const open = () => {
    const c = new Redis(url);
    opened.push(c);
    return c;
  };
  try {
    const shortPlan = { ...plan, warmup: Math.min(plan.warmup, 1000) };
    return {
      pubsub: await measureRoundTrip(await pubsubRoundTrip(open), shortPlan, { concurrent: false }),
      stream: await measureRoundTrip(await streamRoundTrip(open), shortPlan, { concurrent: false }),
    };
  } finally {
    for (const c of opened) c.disconnect();
  }
}

async function pubsubRoundTrip(open) {
  const [a, b, subA, subB] = [open(), open(), open(), open()];
  await subA.subscribe('bench:inbox:a');
  await subB.subscribe('bench:inbox:b');
  subB.on('message', (_channel, text) => void b.publish('bench:inbox:a', text));
  let heard = null;
  subA.on('message', () => heard?.());
  return async () => {
    const reply = new Promise((resolve) => (heard = resolve));
    await a.publish('bench:inbox:b', 'ping');
    await reply;
  };
}

async function streamRoundTrip(open) {
  const [a, b, readA, readB] = [open(), open(), open(), open()];
  await a.del('bench:stream:a', 'bench:stream:b');
  const lastOf = (reply, last) => reply?.[0]?.[1]?.at(-1)?.[0] ?? last;
  // B answers every entry of its inbox stream into A's, reading after the last entry it saw.
  let lastB = '0-0';
  let running = true;
  void (async () => {
    while (running) {
      // A closed connection rejects at once: stop, or this loop would starve the event loop.
      const got = await readB.xread('BLOCK', 1000, 'STREAMS', 'bench:stream:b', lastB).catch(() => {
        running = false;
        return null;
      });
      lastB = lastOf(got, lastB);
      if (got) await b.xadd('bench:stream:a', 'MAXLEN', '~', 1000, '*', 'm', 'pong').catch(() => undefined);
    }
  })();
  let lastA = '0-0';
  const trip = async () => {
    const reply = readA.xread('BLOCK', 1000, 'STREAMS', 'bench:stream:a', lastA);
    await a.xadd('bench:stream:b', 'MAXLEN', '~', 1000, '*', 'm', 'ping');
    const got = await reply;
    lastA = lastOf(got, lastA);
    return got !== null;
  };
  return trip;
}
