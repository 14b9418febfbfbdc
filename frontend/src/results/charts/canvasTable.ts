/** Draws a table (title, header, rows, optional cell colours) on a canvas, for PNG export
 * of the figures that are HTML rather than Chart.js (heat map, thresholds). */
export interface CanvasTable {
  title: string;
  header: string[];
  rows: string[][];
  fill?: (row: number, column: number) => string | null;
  outline?: (row: number, column: number) => boolean;
}

export function tablesToPng(tables: CanvasTable[], heading: string): Promise<Blob> {
  const scale = 2;
  const font = "14px system-ui, -apple-system, 'Segoe UI', Roboto, Arial, sans-serif";
  const padding = 16;
  const rowHeight = 26;
  const measure = document.createElement('canvas').getContext('2d');
  if (!measure) return Promise.reject(new Error('no 2D canvas'));
  measure.font = font;
  const widths = tables.map((t) => {
    const columns = t.header.map((h, c) => Math.max(measure.measureText(h).width, ...t.rows.map((r) => measure.measureText(r[c] ?? '').width)) + 16);
    return columns;
  });
  const tableWidth = (cols: number[]) => cols.reduce((s, w) => s + w, 0);
  const width = Math.max(480, ...widths.map(tableWidth)) + 2 * padding;
  const height = padding * 2 + 30 + tables.reduce((s, t) => s + 30 + rowHeight * (t.rows.length + 1) + 16, 0);
  const canvas = document.createElement('canvas');
  canvas.width = width * scale;
  canvas.height = height * scale;
  const ctx = canvas.getContext('2d');
  if (!ctx) return Promise.reject(new Error('no 2D canvas'));
  ctx.scale(scale, scale);
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, width, height);
  ctx.fillStyle = '#1c2430';
  ctx.font = `bold 16px system-ui, sans-serif`;
  ctx.fillText(heading, padding, padding + 16);
  let y = padding + 40;
  tables.forEach((t, ti) => {
    const cols = widths[ti] ?? [];
    ctx.font = 'bold 14px system-ui, sans-serif';
    ctx.fillStyle = '#1c2430';
    ctx.fillText(t.title, padding, y + 14);
    y += 24;
    const all = [t.header, ...t.rows];
    all.forEach((row, r) => {
      let x = padding;
      row.forEach((cell, c) => {
        const w = cols[c] ?? 60;
        const fill = r > 0 ? t.fill?.(r - 1, c) : '#eef1f5';
        if (fill) {
          ctx.fillStyle = fill;
          ctx.fillRect(x, y, w, rowHeight);
        }
        ctx.strokeStyle = r > 0 && t.outline?.(r - 1, c) ? '#1c2430' : '#d9dee5';
        ctx.lineWidth = r > 0 && t.outline?.(r - 1, c) ? 2 : 1;
        ctx.strokeRect(x + 0.5, y + 0.5, w - 1, rowHeight - 1);
        ctx.font = r === 0 || c === 0 ? 'bold 13px system-ui, sans-serif' : font;
        ctx.fillStyle = fill && r > 0 && isDark(fill) ? '#fff' : '#1c2430';
        ctx.fillText(cell, x + 8, y + 18);
        x += w;
      });
      y += rowHeight;
    });
    y += 16;
  });
  return new Promise((resolve, reject) => {
    canvas.toBlob((blob) => {
      if (blob) resolve(blob);
      else reject(new Error('the browser could not encode the PNG'));
    }, 'image/png');
  });
}

function isDark(colour: string): boolean {
  const m = /^rgba?\((\d+),\s*(\d+),\s*(\d+)(?:,\s*([\d.]+))?\)$/.exec(colour);
  if (!m) return false;
  const alpha = m[4] === undefined ? 1 : Number(m[4]);
  const luminance = (0.299 * Number(m[1]) + 0.587 * Number(m[2]) + 0.114 * Number(m[3])) / 255;
  return alpha > 0.5 && luminance * alpha + (1 - alpha) < 0.55;
}
