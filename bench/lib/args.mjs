/**
 * The bench's command line: `--quick`, `--only a,b`, `--out FILE`, `--calls-order turns|sequential`, `--help`.
 */

/** @typedef {{ quick: boolean, only: string[] | null, help: boolean, out: string | null, callsOrder: 'turns' | 'sequential' }} BenchArgs */

export const USAGE = `npm run bench [-- options]

  --quick          a short pass (fewer trials; events 10 s instead of 60 s)
  --only a,b       run only these tables: calls, batch, events, snapshot,
                   snapshotExtension, footprint, cluster
  --out FILE       write the JSON here instead of bench/results/<timestamp>.json
  --calls-order sequential
                   table 1 measures each path in one go, one after another (the order
                   before s17); the default, turns, opens every path up front and runs
                   the trials in rounds, each path one trial per round, rotating
  --help           this text
`;

/**
 * @param {string[]} argv
 * @param {readonly string[]} tableIds
 * @returns {BenchArgs}
 */
export function parseArgs(argv, tableIds) {
  /** @type {BenchArgs} */
  const args = { quick: false, only: null, help: false, out: null, callsOrder: 'turns' };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.includes('=')
      ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
      : [arg, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    if (flag === '--quick') args.quick = true;
    else if (flag === '--help' || flag === '-h') args.help = true;
    else if (flag === '--out') args.out = value();
    else if (flag === '--calls-order') {
      const order = value();
      if (order !== 'turns' && order !== 'sequential')
        throw new Error(`--calls-order: turns or sequential, not ${order}`);
      args.callsOrder = order;
    } else if (flag === '--only') {
      const ids = value()
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const unknown = ids.filter((id) => !tableIds.includes(id));
      if (unknown.length > 0)
        throw new Error(`--only: unknown table ${unknown.join(', ')} (known: ${tableIds.join(', ')})`);
      args.only = ids;
    } else throw new Error(`unknown option ${arg}\n\n${USAGE}`);
  }
  return args;
}
