/**
 * Who may talk to the MCP/relay port (SPEC §9): `Host` must name the bound
 * address (DNS-rebinding protection), `/mcp` takes no foreign `Origin`, and
 * with `--token-file` every request carries the bearer token.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

/** The address a server listens on, with its real port. */
export interface BoundAddress {
  /** As given to `listen`: `127.0.0.1`, `::1`, `localhost`, `0.0.0.0`, a LAN address… */
  host: string;
  port: number;
}

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** True for 127.0.0.0/8, ::1 and `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127(\.\d{1,3}){3}$/.test(bare);
}

function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '[::]';
}

/** The host as it appears in a URL: IPv6 in brackets. */
export function urlHost(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}

/** The host a URL for clients names: a wildcard bind is reached on loopback from this machine. */
export function displayHost(host: string): string {
  return isWildcard(host) ? '127.0.0.1' : urlHost(host);
}

/** The hostname and port a `Host` header names, or null when it is not a valid one. */
function parseHostHeader(value: string): { hostname: string; port: number } | null {
  try {
    const url = new URL(`http://${value}`);
    if (url.username || url.password || url.pathname !== '/' || `${url.host}` !== value.toLowerCase()) return null;
    return { hostname: url.hostname, port: url.port === '' ? 80 : Number(url.port) };
  } catch {
    return null;
  }
}

/**
 * True when `Host` names the bound address: for a loopback bind any loopback
 * name with the port; for a wildcard bind an IP literal (never a DNS name,
 * which is what rebinding uses) with the port; otherwise the bound host.
 */
export function hostMatches(hostHeader: string | undefined, bound: BoundAddress): boolean {
  if (!hostHeader) return false;
  const parsed = parseHostHeader(hostHeader);
  if (!parsed || parsed.port !== bound.port) return false;
  if (isLoopbackHost(bound.host)) return LOOPBACK_NAMES.includes(parsed.hostname);
  if (isWildcard(bound.host))
    return parsed.hostname === 'localhost' || isIP(parsed.hostname.replace(/^\[|\]$/g, '')) !== 0;
  return parsed.hostname === urlHost(bound.host).toLowerCase();
}

/** `/mcp`: no `Origin`, or the server's own origin (as the `Host` it was reached by). */
export function mcpOriginAllowed(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  return origin.toLowerCase() === `http://${(req.headers.host ?? '').toLowerCase()}`;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** Constant-time comparison of two secrets (hashed first, so lengths leak nothing). */
export function secretEquals(presented: string, expected: string): boolean {
  return timingSafeEqual(digest(presented), digest(expected));
}

/** The bearer token of an `Authorization` header, or null. */
export function bearerOf(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1] ?? null;
}

/** True when no token is configured or the request carries it. */
export function bearerAllowed(req: IncomingMessage, token: string | null, alternative: string | null = null): boolean {
  if (token === null) return true;
  const presented = bearerOf(req.headers.authorization) ?? alternative;
  return presented !== null && secretEquals(presented, token);
}
