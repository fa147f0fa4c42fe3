/**
 * The HTTP half of bench/profileCalls.mjs: `tools/call` over Streamable HTTP
 * with a page attached, against the MCP SDK alone over the same transport.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { printProfile, summarizeProfile } from './cpuProfile.mjs';
import { runRoundTrips } from './measure.mjs';
import { spawnUntilLine, stopChild } from './processes.mjs';
import { trialStats } from './stats.mjs';
import { READ_CALL, REQUEST_OPTIONS } from './tradescript.mjs';

const PROFILED = fileURLToPath(new URL('profiled.mjs', import.meta.url));
const SDK_FIXTURE = fileURLToPath(new URL('../fixtures/sdkServer.mjs', import.meta.url));
const WARMUP = 2_000;

/**
 * A fetch that records, per request, the time to its response headers and to
 * the end of its body (the SDK reads SSE bodies to the end).
 */
function phaseFetch(base) {
  const phases = [];
  const fetchWith = async (url, init) => {
    const t0 = performance.now();
    const response = await base(url, init);
    const headers = performance.now() - t0;
    if (!response.body || init?.method !== 'POST') return response;
    const reader = response.body.getReader();
    const body = new ReadableStream({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) {
          phases.push({ headers, end: performance.now() - t0 });
          controller.close();
        } else controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return { fetch: fetchWith, phases };
}

function client(h, url, era) {
  const timing = phaseFetch(h.perRequestSignalFetch());
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: timing.fetch });
  const c = new Client(
    { name: 'tradescript-bench-profile', version: '0.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  return { client: c, transport, phases: timing.phases };
}

/** Waits for the wrapper's `profiled:` line after the second SIGUSR2. */
function profileWritten(lines) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no profile written within 20 s')), 20_000);
    lines.once('profiled', (line) => {
      clearTimeout(timer);
      if (line.includes('written')) resolve();
      else reject(new Error(line));
    });
  });
}

/** Warm-up, an unprofiled run, then `calls` calls between two SIGUSR2 to the server; returns the phases. */
async function measure(label, op, pid, lines, phases, calls) {
  await runRoundTrips(op, WARMUP, 1);
  const plain = await runRoundTrips(op, calls, 1);
  const stats = trialStats(plain.latencies, plain.wallMs);
  phases.length = 0;
  globalThis.gc?.();
  process.kill(pid, 'SIGUSR2');
  await new Promise((resolve) => setTimeout(resolve, 200));
  const profiled = await runRoundTrips(op, calls, 1);
  const written = profileWritten(lines);
  process.kill(pid, 'SIGUSR2');
  await written;
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const calledPhases = phases.slice(-calls);
  console.log(
    `\n${label}: unprofiled p50 ${stats.p50.toFixed(3)} ms, p99 ${stats.p99.toFixed(3)} ms; profiled ` +
      `${(profiled.wallMs / calls).toFixed(3)} ms per call; client phases p50: headers ` +
      `${median(calledPhases.map((p) => p.headers)).toFixed(3)} ms, body end ${median(calledPhases.map((p) => p.end)).toFixed(3)} ms ` +
      `(${profiled.failures} failed)`,
  );
}

/** A stderr line watcher that emits `profiled` lines. */
async function lineEvents(stream) {
  const { EventEmitter } = await import('node:events');
  const { createInterface } = await import('node:readline');
  const events = new EventEmitter();
  createInterface({ input: stream }).on('line', (line) => {
    if (line.startsWith('profiled:')) events.emit('profiled', line);
  });
  return events;
}

/**
 * @param {any} h the harness
 * @param {{ calls: number, era: 'legacy' | 'modern', out: string }} opts
 */
export async function profileHttp(h, { calls, era, out }) {
  // 1. The SDK alone over the same transport: the anchor's own HTTP cost.
  const sdkProfile = join(out, 'sdk.cpuprofile');
  const anchor = await spawnUntilLine([PROFILED, sdkProfile, SDK_FIXTURE, era === 'modern' ? '--http2026' : '--http'], {
    prefix: 'sdk-anchor ready ',
  });
  try {
    const sdkLines = await lineEvents(anchor.child.stderr);
    const sdk = client(h, JSON.parse(anchor.rest).url, era);
    await sdk.client.connect(sdk.transport);
    await sdk.client.listTools();
    const ping = async () =>
      (await sdk.client.callTool({ name: 'ping', arguments: {} }, REQUEST_OPTIONS)).isError !== true;
    await measure('MCP SDK alone', ping, anchor.child.pid, sdkLines, sdk.phases, calls);
    await sdk.client.close().catch(() => {});
  } finally {
    anchor.child.stdin?.end();
    await stopChild(anchor.child);
  }
  printProfile('MCP SDK alone, server process', summarizeProfile(sdkProfile, calls));

  // 2. Ours with a page attached.
  const serverProfile = join(out, 'server.cpuprofile');
  const server = await h.startServer([serverProfile, h.serverBin, 'demo'], { bin: PROFILED });
  const browser = await h.launchBrowser();
  try {
    const lines = await lineEvents(server.child.stderr);
    const { page } = await h.newPage(browser);
    const sessionId = await h.pairPage(page, server.ready.pairUrl);
    const ours = client(h, server.ready.mcpUrl, era);
    await ours.client.connect(ours.transport);
    await ours.client.listTools();
    let handle;
    const call = async () => {
      const args = { sessionId, ...READ_CALL, ...(era === 'modern' && handle ? { attachment: handle } : {}) };
      const result = await ours.client.callTool({ name: 'tradescript_call', arguments: args }, REQUEST_OPTIONS);
      if (era === 'modern') handle = result.structuredContent?.meta?.attachment ?? handle;
      return result.isError !== true;
    };
    await measure('tradescript_call', call, server.pid, lines, ours.phases, calls);
    await ours.client.close().catch(() => {});
  } finally {
    await server.close();
    await h.closeAll();
  }
  printProfile('tradescript-mcp, server process', summarizeProfile(serverProfile, calls));
  console.log(`\nprofiles: ${out}`);
}
