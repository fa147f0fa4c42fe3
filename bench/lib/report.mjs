/**
 * Printing: aligned text tables, target checks (PASS/MISS), placeholders.
 */

/**
 * `baseline`: a check of the `before:` build, shown but not counted.
 * @typedef {{ name: string, measured: number, limit: number, unit?: string, higherIsBetter?: boolean, basis: string, baseline?: boolean }} Check
 */

/** Formats a number for a table cell. */
export function fmt(value, digits = 2) {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return value;
  if (!Number.isFinite(value)) return '—';
  if (Number.isInteger(value)) return value.toLocaleString('en-US');
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString('en-US');
  return value.toFixed(digits);
}

/**
 * Renders rows as an aligned table; the first column is left-aligned, the rest right.
 * @param {string[]} header
 * @param {(string | number | null)[][]} rows
 */
export function renderTable(header, rows) {
  const cells = [header, ...rows.map((row) => row.map((c) => (typeof c === 'number' ? fmt(c) : (c ?? '—'))))];
  const widths = header.map((_, col) => Math.max(...cells.map((row) => String(row[col] ?? '').length)));
  const line = (row) =>
    row.map((c, col) => (col === 0 ? String(c).padEnd(widths[col]) : String(c).padStart(widths[col]))).join('  ');
  const rule = widths.map((w) => '─'.repeat(w)).join('  ');
  return [line(cells[0]), rule, ...cells.slice(1).map(line)].join('\n');
}

/** A check's verdict: PASS, MISS, or n/a when it could not be computed. */
export function verdict(check) {
  if (!Number.isFinite(check.measured) || !Number.isFinite(check.limit)) return 'n/a';
  const ok = check.higherIsBetter ? check.measured >= check.limit : check.measured <= check.limit;
  return ok ? 'PASS' : 'MISS';
}

/** Renders target checks as a table. */
export function renderChecks(checks) {
  if (checks.length === 0) return '';
  const rows = checks.map((c) => {
    const unit = Number.isFinite(c.measured) ? (c.unit ?? '') : '';
    const ratio = Number.isFinite(c.measured) && Number.isFinite(c.limit) && c.limit !== 0 ? c.measured / c.limit : NaN;
    return [
      c.name,
      `${fmt(c.measured)}${unit}`,
      `${c.higherIsBetter ? '≥' : '≤'} ${fmt(c.limit)}${c.unit ?? ''}`,
      Number.isFinite(ratio) ? `${ratio.toFixed(2)}×` : '—',
      c.basis,
      verdict(c),
    ];
  });
  return renderTable(['target (SPEC §12)', 'measured', 'limit', 'of limit', 'limit is', 'verdict'], rows);
}

/** The JSON form of a check. */
export function checkJson(check) {
  return { ...check, verdict: verdict(check) };
}
