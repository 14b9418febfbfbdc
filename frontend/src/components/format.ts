const numberFormat = new Intl.NumberFormat('en', { maximumFractionDigits: 2 });

/** Formats a measured quantity for a table cell: `12`, `0.5`, `1.25`. */
export function formatNumber(value: number): string {
  return numberFormat.format(value);
}
