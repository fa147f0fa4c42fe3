/** The bridge runtime's version, sent as `hello.agent.version` (kept equal to package.json's). */
export const BRIDGE_VERSION = '0.1.0';
