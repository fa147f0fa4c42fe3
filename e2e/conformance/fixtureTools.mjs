/**
 * The conformance suite's fixed test tools, resources and prompt (test only:
 * never in the product's tool list, never in dist/). The suite calls them by
 * name (`test_simple_text`, `test://static-text` …) to check the protocol
 * features our server uses: text and image results, tool errors, progress,
 * text resources, resource templates, prompts, resource subscriptions. They
 * are served next to the product's own through `startServer`'s `extendMcp`,
 * so every request still crosses our HTTP endpoint, our era routing and our
 * server instances.
 */
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';

/** A 1×1 red PNG. */
const RED_PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

const TOOLS = [
  { name: 'test_simple_text', description: 'Returns simple text (conformance fixture).' },
  { name: 'test_image_content', description: 'Returns a 1x1 PNG (conformance fixture).' },
  { name: 'test_error_handling', description: 'Always fails (conformance fixture).' },
  { name: 'test_tool_with_progress', description: 'Reports progress 0, 50, 100 of 100 (conformance fixture).' },
].map((tool) => ({ ...tool, inputSchema: { type: 'object', properties: {}, additionalProperties: false } }));

const TEXT_URI = 'test://static-text';
const WATCHED_URI = 'test://watched-resource';
const TEMPLATE = 'test://template/{id}/data';
const TEMPLATE_PATTERN = /^test:\/\/template\/([^/]+)\/data$/;

const RESOURCES = [
  { uri: TEXT_URI, name: 'static-text', description: 'Static text (conformance fixture).', mimeType: 'text/plain' },
  {
    uri: WATCHED_URI,
    name: 'watched',
    description: 'A subscribable resource (conformance fixture).',
    mimeType: 'text/plain',
  },
];

const PROMPT = { name: 'test_simple_prompt', description: 'A prompt without arguments (conformance fixture).' };

const text = (value) => ({ content: [{ type: 'text', text: value }] });
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function callFixture(name, request, extra) {
  switch (name) {
    case 'test_simple_text':
      return text('This is a simple text response for testing.');
    case 'test_image_content':
      return { content: [{ type: 'image', data: RED_PIXEL, mimeType: 'image/png' }] };
    case 'test_error_handling':
      return { ...text('This tool intentionally returns an error for testing'), isError: true };
    case 'test_tool_with_progress': {
      const progressToken = request.params._meta?.progressToken;
      for (const progress of [0, 50, 100]) {
        if (progressToken !== undefined) {
          await extra.mcpReq.notify({
            method: 'notifications/progress',
            params: { progressToken, progress, total: 100 },
          });
        }
        if (progress < 100) await pause(50);
      }
      return text('Progress tool completed.');
    }
    default:
      return null;
  }
}

function readFixture(uri) {
  if (uri === TEXT_URI) {
    return { contents: [{ uri, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }] };
  }
  if (uri === WATCHED_URI) return { contents: [{ uri, mimeType: 'text/plain', text: 'Watched.' }] };
  const id = TEMPLATE_PATTERN.exec(uri)?.[1];
  if (id === undefined) return null;
  const data = { id, templateTest: true, data: `Data for ID: ${id}` };
  return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(data) }] };
}

/** The `extendMcp` of the conformance fixture server: fixtures first, then the product's own handlers. */
export function conformanceFixture(server, own) {
  server.setRequestHandler('tools/list', () => ({ tools: [...own.listTools(), ...TOOLS] }));
  server.setRequestHandler('tools/call', async (request, extra) => {
    const fixture = await callFixture(request.params.name, request, extra);
    return fixture ?? own.callTool(request, extra);
  });
  server.setRequestHandler('resources/list', async () => ({
    resources: [...(await own.listResources()), ...RESOURCES],
  }));
  server.setRequestHandler('resources/templates/list', () => ({
    resourceTemplates: [
      ...own.listResourceTemplates(),
      {
        uriTemplate: TEMPLATE,
        name: 'template-data',
        description: 'Templated data (conformance fixture).',
        mimeType: 'application/json',
      },
    ],
  }));
  server.setRequestHandler(
    'resources/read',
    (request, extra) => readFixture(request.params.uri) ?? own.readResource(request, extra),
  );
  server.setRequestHandler('prompts/list', () => ({ prompts: [...own.listPrompts(), PROMPT] }));
  server.setRequestHandler('prompts/get', (request) => {
    if (request.params.name !== PROMPT.name) return own.getPrompt(request);
    return { messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }] };
  });
  const subscribable = (uri) => uri === WATCHED_URI;
  server.setRequestHandler('resources/subscribe', (request) => {
    if (subscribable(request.params.uri)) return {};
    if (!own.subscribe) throw new ProtocolError(ProtocolErrorCode.MethodNotFound, 'No subscriptions here.');
    own.subscribe(request.params.uri);
    return {};
  });
  server.setRequestHandler('resources/unsubscribe', (request) => {
    if (subscribable(request.params.uri)) return {};
    own.unsubscribe?.(request.params.uri);
    return {};
  });
}
