/**
 * Hostile relay frames (SPEC §9): generated from the relay's own frame schema
 * and mutated, plus raw garbage, sent by a paired tab to the real hub over an
 * in-memory socket. The hub never throws, answers a valid frame or closes the
 * socket with a relay code, logs no frame content, and an honest tab on the
 * same hub keeps answering its requests throughout.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BrowserFrameSchema, CLOSE_CODES, DEFAULT_LIMITS, relayLimitsOf } from '../../protocol/index.js';
import { mutate, mutationArbitrary } from '../../testing/mutations.js';
import { arbitraryFor, MARKER_PATTERN, type JsonSchema } from '../../testing/schemaArbitrary.js';
import { Hub } from '../hub/hub.js';
import { openScriptedTab, testAuthenticator, type ScriptedTab } from '../testing/scriptedTab.js';
import { createLogger } from '../log.js';

const RELAY_CLOSE_CODES = new Set<number>(Object.values(CLOSE_CODES));
const FRAME_SCHEMA = z.toJSONSchema(BrowserFrameSchema, { io: 'input' }) as JsonSchema;
const limits = relayLimitsOf(DEFAULT_LIMITS);

const lines: string[] = [];
let hub: Hub;
let honest: ScriptedTab;
const stats = { frames: 0, closed: 0, kept: 0 };

beforeAll(async () => {
  // Every hostile tab is h_hostile's; with no reload window, its tabs gone make room for the next (SPEC §2).
  hub = new Hub({
    auth: testAuthenticator(),
    logger: createLogger('debug', (l) => lines.push(l)),
    serverVersion: 't',
    timing: { reloadWindowMs: 0 },
  });
  honest = await openScriptedTab(hub, { hostId: 'h_honest' });
});

afterAll(() => {
  // The counts go to stderr: nothing under src/ writes stdout (the stdio MCP channel).
  process.stderr.write(
    `relay fuzz: ${stats.frames} hostile frames, ${stats.closed} sockets closed with a relay code, ${stats.kept} kept\n`,
  );
  hub.close();
});

/** The honest tab still gets exactly its own request and its answer comes back. */
async function honestStillAnswers(): Promise<void> {
  const { attachmentId } = await hub.attach({ clientName: 'c', transport: 'stdio' });
  const pending = hub.request(
    attachmentId,
    honest.sessionId,
    { kind: 'context', target: { scope: 'session' } },
    {
      adapter: { maxAccess: 'write', allowControls: null },
      limits,
      deadlineMs: 5_000,
    },
  );
  const request = await honest.nextRequest();
  honest.answer(request.id, { honest: true });
  expect(await pending).toMatchObject({ ok: true, data: { honest: true } });
  await hub.detach(attachmentId);
}

/** Sends one hostile text from a freshly paired tab; returns the breaches. */
async function hostile(text: string, mustClose = false): Promise<string[]> {
  stats.frames += 1;
  const tab = await openScriptedTab(hub, { hostId: 'h_hostile' });
  const before = lines.length;
  tab.client.sendText(text);
  await new Promise((resolve) => setTimeout(resolve, 0));
  const problems: string[] = [];
  if (tab.client.closed) {
    stats.closed += 1;
    if (!RELAY_CLOSE_CODES.has(tab.client.closed.code)) problems.push(`closed with ${tab.client.closed.code}`);
  } else {
    if (mustClose) problems.push('the socket stayed open');
    stats.kept += 1;
    tab.client.drop(1000);
  }
  const logged = lines.slice(before).join('\n');
  if (MARKER_PATTERN.test(logged)) problems.push(`frame content in the log: ${logged.slice(0, 300)}`);
  return problems;
}

function shown(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

describe('SPEC §9 hostile frames from a paired tab', () => {
  it('SPEC §9 frames generated from the relay schema and mutated: answered or closed with a relay code, never logged, never a crash', async () => {
    const frames = fc.tuple(arbitraryFor(FRAME_SCHEMA), fc.array(mutationArbitrary, { maxLength: 3 }));
    await fc.assert(
      fc.asyncProperty(frames, async ([frame, plan]) => {
        let text: string;
        try {
          text = JSON.stringify(mutate(frame, plan));
        } catch {
          return; // too deep for JSON.stringify: the raw-text property sends such frames
        }
        const problems = await hostile(text);
        if (problems.length > 0) throw new Error(`${problems.join('; ')}\nframe: ${shown(text)}`);
      }),
      { numRuns: 400 },
    );
    await honestStillAnswers();
  });

  it('SPEC §9 raw text (broken JSON, 100,000-deep nesting, unicode, a second hello) closes the socket with 4400 or 4413', async () => {
    const deep = `{"t":"response","id":"r1","environment":null,"outcome":{"ok":true,"data":${'['.repeat(100_000)}"QZX1XZQ"${']'.repeat(100_000)}}}`;
    const raw = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 64 }).map((s) => `QZX2XZQ${s}`),
      fc.constant(
        '{"t":"hello","v":1,"agent":{"kind":"page","version":"QZX3XZQ"},"auth":{"kind":"pair","code":"QZX3XZQ"}}',
      ),
      fc.constant('{"t":"response","id":"QZX4XZQ",'),
      fc.constant(deep),
      fc.constant('\ud800QZX5XZQ'),
      fc.constant('null'),
      fc.constant('[]'),
    );
    await fc.assert(
      fc.asyncProperty(raw, async (text) => {
        const problems = await hostile(text, true);
        if (problems.length > 0) throw new Error(`${problems.join('; ')}\nframe: ${shown(text)}`);
      }),
      { numRuns: 120 },
    );
    await honestStillAnswers();
    expect(hub.status().sockets).toBeGreaterThanOrEqual(1);
  });
});
