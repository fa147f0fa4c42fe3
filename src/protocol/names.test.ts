import { describe, expect, it } from 'vitest';
import { ACCESS_CLASSES, DEFAULT_GRANT, isAccessClass, TOOL_NAME_LIST } from './names.js';
import { AccessClassSchema, DEFAULT_GRANT as POLICY_DEFAULT_GRANT } from './policy.js';
import { TOOL_NAMES } from './tools/index.js';

describe('schema-free names (SPEC §12: the CLI and a starting server read these, not the schemas)', () => {
  it('the tool names are the tool definitions’ names, in tools/list order', () => {
    expect([...TOOL_NAME_LIST]).toEqual(TOOL_NAMES);
  });

  it('the access classes are the schema’s, and the default grant is policy’s', () => {
    expect([...ACCESS_CLASSES]).toEqual(AccessClassSchema.options);
    expect(DEFAULT_GRANT).toBe(POLICY_DEFAULT_GRANT);
    expect(ACCESS_CLASSES.filter(isAccessClass)).toEqual(['read', 'write', 'trade']);
    expect(['', 'admin', 'Read', 'trade '].some(isAccessClass)).toBe(false);
  });
});
