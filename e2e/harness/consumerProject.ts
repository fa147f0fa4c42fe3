/**
 * The package as users install it (SPEC §10, STYLE 14): `npm pack` of the built
 * repository, installed into a fresh project in the system's temporary folder
 * (outside the repository, so nothing resolves through it), with the vendor's
 * own Vite and TypeScript. Installs prefer npm's cache: after `npm ci` here the
 * registry is asked only about what the cache lacks.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize, sep } from 'node:path';
import { promisify } from 'node:util';
import { track } from './index.js';
import { repoRoot } from './paths.js';

const run = promisify(execFile);

/** The npm that runs this test (`npm_execpath` under `npm test`), else the one on PATH. */
function npm(args: string[], cwd: string): Promise<{ stdout: string; stderr: string }> {
  const cli = process.env['npm_execpath'];
  const [command, argv] = cli?.endsWith('.js') ? [process.execPath, [cli, ...args]] : ['npm', args];
  return run(command, argv, { cwd, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 });
}

/** The version of a package the repository itself installed (the consumer uses the same). */
function installedVersion(name: string): string {
  return (JSON.parse(readFileSync(join(repoRoot, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
    .version;
}

/** A consumer project with the packed tradescript-mcp installed. */
export interface ConsumerProject {
  /** The project folder (in the system's temporary folder). */
  dir: string;
  /** The packed tarball it installed. */
  tarball: string;
  /** `node_modules/tradescript-mcp`, as installed. */
  packageDir: string;
  /** The installed CLI (`node_modules/tradescript-mcp/dist/node/server/bin.js`). */
  cli: string;
  /** Runs a binary of the project's own `node_modules/.bin` with node, in the project folder. */
  exec(bin: string, args: string[]): Promise<{ stdout: string; stderr: string }>;
  close(): void;
}

/**
 * Packs the repository (its `dist` must be built) and installs the tarball, zod,
 * and the vendor's Vite and TypeScript into a new project; copies `fixture`'s
 * files into it.
 */
export async function createConsumerProject(fixture: URL): Promise<ConsumerProject> {
  const dir = mkdtempSync(join(tmpdir(), 'tradescript-consumer-'));
  const close = (): void => rmSync(dir, { recursive: true, force: true });
  const untrack = track(async () => close());
  try {
    const packed = await npm(['pack', '--json', '--ignore-scripts', '--pack-destination', dir], repoRoot);
    const [{ filename }] = JSON.parse(packed.stdout) as [{ filename: string }];
    const tarball = join(dir, filename);
    cpSync(fixture, dir, { recursive: true });
    writeFileSync(
      join(dir, 'package.json'),
      `${JSON.stringify(
        {
          name: 'consumer-terminal',
          private: true,
          type: 'module',
          dependencies: { 'tradescript-mcp': `file:${tarball}`, zod: `^${installedVersion('zod')}` },
          devDependencies: { vite: installedVersion('vite'), typescript: installedVersion('typescript') },
        },
        null,
        2,
      )}\n`,
    );
    await npm(['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], dir);
    const packageDir = join(dir, 'node_modules/tradescript-mcp');
    return {
      dir,
      tarball,
      packageDir,
      cli: join(packageDir, 'dist/node/server/bin.js'),
      exec: (bin, args) => {
        const pkg = JSON.parse(readFileSync(join(dir, 'node_modules', bin, 'package.json'), 'utf8')) as {
          bin: string | Record<string, string>;
        };
        const entry = typeof pkg.bin === 'string' ? pkg.bin : Object.values(pkg.bin)[0]!;
        return run(process.execPath, [join(dir, 'node_modules', bin, entry), ...args], {
          cwd: dir,
          timeout: 120_000,
        });
      },
      close: () => {
        untrack();
        close();
      },
    };
  } catch (error) {
    untrack();
    close();
    throw error;
  }
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.map': 'application/json',
};

/** A static site on its own loopback origin. */
export interface StaticSite {
  origin: string;
  /** Paths asked for, in order. */
  requested: string[];
  /** Paths answered 404. */
  missing: string[];
  close(): Promise<void>;
}

/**
 * Serves folders under URL prefixes (`{'/vendor/tradescript/': dir, '/': site}`),
 * the longest prefix first, like a vendor's web server (or a CDN, with CORS
 * `headers`); `index.html` for a folder.
 */
export async function serveStatic(
  mounts: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<StaticSite> {
  const prefixes = Object.keys(mounts).sort((a, b) => b.length - a.length);
  const requested: string[] = [];
  const missing: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    requested.push(path);
    const prefix = prefixes.find((p) => path.startsWith(p));
    const root = prefix === undefined ? undefined : mounts[prefix];
    let file = root === undefined ? '' : normalize(join(root, path.slice(prefix!.length)));
    if (root !== undefined && statSync(file, { throwIfNoEntry: false })?.isDirectory()) file = join(file, 'index.html');
    const inside =
      root !== undefined &&
      (file === root || file.startsWith(root.endsWith(sep) ? root : root + sep)) &&
      statSync(file, { throwIfNoEntry: false })?.isFile();
    if (!inside) missing.push(path);
    res.writeHead(inside ? 200 : 404, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      ...headers,
    });
    res.end(inside ? readFileSync(file) : '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = (): Promise<void> =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  const untrack = track(close);
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requested,
    missing,
    close: async () => {
      untrack();
      await close();
    },
  };
}
