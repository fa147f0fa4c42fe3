/**
 * The few multi-key steps that must be atomic in Redis (SPEC §14), as Lua
 * scripts defined on the command connection. Everything else is a plain
 * command or a pipeline.
 */

/** The scripts, typed as ioredis defines them on a client. */
export interface ClusterScripts {
  /**
   * Claims a kept session id for `node`: `ok`, `foreign` (another host's or
   * principal's id), or `owned` with the node holding it (unless `force`).
   * KEYS: record, owner, tombstone. ARGV: hostId, principal, node, leaseMs, force.
   */
  tsClaim(
    record: string,
    owner: string,
    tombstone: string,
    hostId: string,
    principal: string,
    node: string,
    leaseMs: number,
    force: '0' | '1',
  ): Promise<string[]>;
  /**
   * Writes a session's record (and vocabulary, when given); takes or renews
   * the owner lease while connected, lets go of it otherwise. `lost` when
   * another node holds the lease. KEYS: record, owner, index, catalog.
   * ARGV: node, recordJson, recordTtlMs, leaseMs, connected, catalogJson ('' to keep).
   */
  tsPutSession(
    record: string,
    owner: string,
    index: string,
    catalog: string,
    node: string,
    json: string,
    recordTtlMs: number,
    leaseMs: number,
    connected: '0' | '1',
    catalogJson: string,
  ): Promise<string>;
  /**
   * Renews the leases and records of the sessions this node holds; returns the
   * 1-based positions of those whose lease another node holds now.
   * KEYS: owner₁, record₁, catalog₁, owner₂, … ARGV: node, leaseMs, recordTtlMs, connected₁, connected₂, …
   */
  tsRenew(numKeys: number, ...args: (string | number)[]): Promise<number[]>;
  /**
   * Closes a session this node holds (a record another node took over is left
   * alone). KEYS: record, owner, catalog, tombstone, index. ARGV: node, sessionId, tombstoneJson, tombstoneTtlMs.
   */
  tsCloseSession(
    record: string,
    owner: string,
    catalog: string,
    tombstone: string,
    index: string,
    node: string,
    sessionId: string,
    tombstoneJson: string,
    tombstoneTtlMs: number,
  ): Promise<number>;
  /** Deletes the owner lease if `node` holds it. KEYS: owner. ARGV: node. */
  tsLetGo(owner: string, node: string): Promise<number>;
}

const CLAIM = `
local rec = redis.call('GET', KEYS[1])
if rec then
  local ok, r = pcall(cjson.decode, rec)
  if not ok or r.hostId ~= ARGV[1] or r.principal ~= ARGV[2] then return {'foreign'} end
else
  local tomb = redis.call('GET', KEYS[3])
  if tomb then
    local ok, t = pcall(cjson.decode, tomb)
    if not ok or t.hostId ~= ARGV[1] or t.principal ~= ARGV[2] then return {'foreign'} end
  end
end
local owner = redis.call('GET', KEYS[2])
if owner and owner ~= ARGV[3] and ARGV[5] ~= '1' then return {'owned', owner} end
redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[4])
return {'ok'}
`;

const PUT_SESSION = `
local owner = redis.call('GET', KEYS[2])
if ARGV[5] == '1' then
  if owner and owner ~= ARGV[1] then return 'lost' end
  redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[4])
elseif owner == ARGV[1] then
  redis.call('DEL', KEYS[2])
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
redis.call('SADD', KEYS[3], string.match(KEYS[1], '[^:]+$'))
if ARGV[6] ~= '' then redis.call('SET', KEYS[4], ARGV[6], 'PX', ARGV[3]) else redis.call('PEXPIRE', KEYS[4], ARGV[3]) end
return 'ok'
`;

const RENEW = `
local lost = {}
local n = #KEYS / 3
for i = 1, n do
  local owner, rec, cat = KEYS[i * 3 - 2], KEYS[i * 3 - 1], KEYS[i * 3]
  if ARGV[3 + i] == '1' then
    local holder = redis.call('GET', owner)
    if holder and holder ~= ARGV[1] then
      table.insert(lost, i)
    else
      redis.call('SET', owner, ARGV[1], 'PX', ARGV[2])
    end
  end
  redis.call('PEXPIRE', rec, ARGV[3])
  redis.call('PEXPIRE', cat, ARGV[3])
end
return lost
`;

const CLOSE_SESSION = `
local rec = redis.call('GET', KEYS[1])
if rec then
  local ok, r = pcall(cjson.decode, rec)
  if ok and r.node ~= ARGV[1] then return 0 end
end
redis.call('DEL', KEYS[1], KEYS[3])
redis.call('SREM', KEYS[5], ARGV[2])
redis.call('SET', KEYS[4], ARGV[3], 'PX', ARGV[4])
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
return 1
`;

const LET_GO = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/** The definitions handed to `defineCommand`. */
export const SCRIPTS: Record<keyof ClusterScripts, { numberOfKeys?: number; lua: string }> = {
  tsClaim: { numberOfKeys: 3, lua: CLAIM },
  tsPutSession: { numberOfKeys: 4, lua: PUT_SESSION },
  tsRenew: { lua: RENEW },
  tsCloseSession: { numberOfKeys: 5, lua: CLOSE_SESSION },
  tsLetGo: { numberOfKeys: 1, lua: LET_GO },
};
