// Aligned text columns, as kubectl prints them: each column as wide as its widest cell, two spaces apart.

/** Rows of cells (the first row the header) as lines whose columns line up; the last column is not padded. */
export function formatTable(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
        .join("  ")
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join("");
}

/** Label/value lines with the values in one column; lines whose value is undefined are left out. */
export function formatFields(fields: readonly (readonly [string, string | undefined])[]): string {
  const shown = fields.filter((f): f is readonly [string, string] => f[1] !== undefined);
  const width = Math.max(0, ...shown.map(([label]) => label.length + 1));
  return shown.map(([label, value]) => `${`${label}:`.padEnd(width)}  ${value}\n`).join("");
}
