/**
 * Where the cluster keeps things in Redis (SPEC §14): one prefix, one key per
 * record. Separate deployments use separate Redis databases (`redis://…/N`)
 * or separate Redis servers.
 */

const P = 'tsmcp:';

/** Key and channel names. */
export const keys = {
  /** A node's membership lease (value: its record), and the set of node ids ever seen live. */
  node: (nodeId: string) => `${P}node:${nodeId}`,
  nodes: `${P}nodes`,
  /** A node's inbox channel; the channel every node hears. */
  inbox: (nodeId: string) => `${P}inbox:${nodeId}`,
  events: `${P}events`,
  /** A session's record, vocabulary, owner lease (value: node id) and tombstone. */
  session: (sessionId: string) => `${P}sess:${sessionId}`,
  catalog: (sessionId: string) => `${P}cat:${sessionId}`,
  owner: (sessionId: string) => `${P}own:${sessionId}`,
  tombstone: (sessionId: string) => `${P}tomb:${sessionId}`,
  /** The session ids of one principal. */
  principalSessions: (principal: string) => `${P}psess:${principal}`,
  /**
   * The MCP attachments of one principal (hash: `<attachment id>@<node id>` →
   * record): a stateless client's attachment is held by every node it talks to.
   */
  principalAttachments: (principal: string) => `${P}patt:${principal}`,
  /** The hosts the person detached an attachment from (a set of host ids). */
  detachedHosts: (attachmentId: string) => `${P}adet:${attachmentId}`,
  /** The secret every node signs stateless attachment handles with. */
  handleKey: `${P}handle-key`,
  /** A paired host's credential record; the host ids of one principal. */
  credential: (hostId: string) => `${P}cred:${hostId}`,
  principalHosts: (principal: string) => `${P}phost:${principal}`,
  /** A live pairing code (by digest of principal and code); the digests of one principal; wrong guesses. */
  code: (digest: string) => `${P}code:${digest}`,
  principalCodes: (principal: string) => `${P}pcode:${principal}`,
  guesses: (principal: string) => `${P}guess:${principal}`,
} as const;
