/**
 * Names and defaults with no schema behind them: what the CLI parses its
 * flags against and a starting server needs before it has been spoken to
 * (SPEC §12: its ready line does not wait for the wire schemas). The schemas
 * are built from these (`policy.ts`); the tool names are pinned to the tool
 * definitions by `names.test.ts`.
 */

/** What a control needs, from least to most: `read` < `write` < `trade` (SPEC §2, §5). */
export const ACCESS_CLASSES = ['read', 'write', 'trade'] as const;

/** An access class, or a grant (the same scale). */
export type AccessClassName = (typeof ACCESS_CLASSES)[number];

/** The grant a newly paired host starts with. */
export const DEFAULT_GRANT: AccessClassName = 'write';

/** True when `value` names an access class. */
export function isAccessClass(value: string): value is AccessClassName {
  return (ACCESS_CLASSES as readonly string[]).includes(value);
}

/** Every tool's name, in the order `tools/list` shows them (`tools/index.ts`'s `TOOLS`). */
export const TOOL_NAME_LIST = [
  'tradescript_get_context',
  'tradescript_list_controls',
  'tradescript_call',
  'tradescript_batch',
  'tradescript_subscribe',
  'tradescript_snapshot',
] as const;
