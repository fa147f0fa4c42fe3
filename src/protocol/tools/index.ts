/**
 * The six tools, in the order `tools/list` shows them.
 */
import { batchTool } from './batch.js';
import { callTool } from './call.js';
import { getContextTool } from './getContext.js';
import { listControlsTool } from './listControls.js';
import { snapshotTool } from './snapshot.js';
import { subscribeTool } from './subscribe.js';

export * from './batch.js';
export * from './call.js';
export * from './common.js';
export * from './getContext.js';
export * from './listControls.js';
export * from './snapshot.js';
export * from './subscribe.js';

/** Every tool definition. */
export const TOOLS = [getContextTool, listControlsTool, callTool, batchTool, subscribeTool, snapshotTool] as const;

/** A tool's name. */
export type ToolName = (typeof TOOLS)[number]['name'];

/**
 * Every tool name. Marked pure, so a bundle that does not use it (the browser's)
 * drops the tool definitions and their descriptions too.
 */
export const TOOL_NAMES = /* @__PURE__ */ TOOLS.map((t) => t.name) as ToolName[];
