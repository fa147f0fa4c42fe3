/**
 * The hub role's machinery (SPEC §2, §9), loaded once its ports are bound
 * (`hubRole.ts`): the credentials, the hub, the `/front` link server, the
 * admin API, and the routes of the held port (`/relay`, `/front`, `/admin/`,
 * `/mcp`). What waited on the port is routed as soon as this has started.
 */
import type { AddressInfo } from 'node:net';
import type { Grant } from '../../protocol/index.js';
import type { AdminContext, ServerUrls } from '../http/adminApi.js';
import { removeHubFile } from '../http/hubFile.js';
import { startPortServer } from '../http/portServer.js';
import type { BoundAddress } from '../http/requestGuard.js';
import { Hub } from '../hub/hub.js';
import { HubLinkServer } from '../hubLink/hubLinkServer.js';
import { createLinkUpgrade } from '../hubLink/linkUpgrade.js';
import { Pairing } from '../pairing/pairing.js';
import { addOrigins, type HubRole, type OpenedParts } from './hubRole.js';

/** Starts the hub on the opened role's held port; resolves once what waited there is routed. */
export async function startMachinery(parts: OpenedParts, frontToken: string): Promise<HubRole> {
  const { options, origins, urls, held, demo } = parts;
  const { config, logger, version } = options;
  // The held port is listening: what waits there is routed during startPortServer, against this address.
  const bound: BoundAddress = { host: options.bind.host, port: (held.http.address() as AddressInfo).port };
  const pairing = new Pairing({ home: config.home, logger: logger.child('pairing'), codes: parts.codes });
  if (pairing.store.setAside) logger.warn('unreadable credentials file set aside; hosts must pair again');
  const hub = new Hub({
    auth: pairing,
    logger: logger.child('hub'),
    serverVersion: version,
    tradingEnabled: config.adapter.maxAccess === 'trade',
    timing: options.timing,
    limits: config.limits,
  });
  const links = new HubLinkServer({
    hub,
    logger: logger.child('front'),
    serverVersion: version,
    relayUrl: () => urls.relayUrl,
    pair: (grant: Grant) => pairing.issueCode(grant),
    addRelayOrigins: (list) => addOrigins(origins, list) && parts.rewrite(),
  });
  const admin: AdminContext = {
    hub,
    pairing,
    logger: logger.child('admin'),
    token: parts.adminToken,
    version,
    defaultGrant: config.pairGrant,
    tradingEnabled: config.adapter.maxAccess === 'trade',
    urls: (): ServerUrls => urls,
  };
  const front = await startPortServer(options.bind, {
    hub,
    logger,
    bearerToken: config.bearerToken,
    mcp: options.mcp,
    relayOrigins: () => origins,
    admin: () => admin,
    hubLink: createLinkUpgrade({
      token: frontToken,
      bound: () => bound,
      logger: logger.child('front'),
      accept: (socket) => links.accept(socket),
    }),
    held,
  });
  return {
    hub,
    pairing,
    front,
    demo,
    urls,
    async close() {
      hub.close();
      // Requests in flight just resolved as lost: let their outcomes reach the fronts before the links close.
      await new Promise((resolve) => setImmediate(resolve));
      links.close();
      await Promise.all([front.close(), demo?.close()]);
      removeHubFile(config.home, admin.token);
    },
  };
}
