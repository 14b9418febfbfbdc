import { useState } from 'react';
import type { ReactNode } from 'react';

import { download, downloadDataURL, toCSV } from '../csv';
import type { Cell } from '../csv';
import type { DocWarning } from '../evidence';
import { FigureWarnings } from '../WarningList';

export interface FigureProps {
  id: string;
  /** "Figure 4.5" etc.: the source study's figure this one reproduces. */
  reference: string;
  title: string;
  caption: ReactNode;
  /** Number of data points drawn (also exposed as data-points for the browser tests). */
  points: number;
  csv: { header: string[]; rows: Cell[][] };
  /** Returns the PNG as a data URL or a Blob. */
  png: () => Promise<string | Blob> | string | null;
  /** The chart itself. */
  children: ReactNode;
  /** The same data as an accessible table (collapsed by default). */
  table?: ReactNode;
  filename: string;
  /** Plain-words reason why the figure is not computable yet: shown instead of the chart. */
  unavailable?: string | null | undefined;
  /** A remark on what is drawn (e.g. a part that is not computable yet). */
  note?: ReactNode;
  /** Extra controls above the chart (factor selectors). */
  controls?: ReactNode;
  /** The analysis' warnings that concern this figure (`doc.warnings`, see evidence.ts). */
  warnings?: readonly DocWarning[];
  /** What the figure's evidence is worth (e.g. the tree's cross-validated accuracy), shown even when not computable. */
  summary?: ReactNode;
}

/** A figure of the explorer: chart, caption, "Download PNG", "Download CSV", data table. */
export function Figure({ id, reference, title, caption, points, csv, png, children, table, filename, unavailable, note, controls, warnings = [], summary }: FigureProps) {
  const [error, setError] = useState<string | null>(null);
  const savePng = async () => {
    setError(null);
    try {
      const image = await png();
      if (image === null) throw new Error('the chart is not drawn yet');
      if (typeof image === 'string') downloadDataURL(`${filename}.png`, image);
      else download(`${filename}.png`, image);
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    }
  };
  return (
    <figure
      className="figure card"
      id={id}
      data-chart={id}
      data-points={unavailable ? 0 : points}
      data-state={unavailable ? 'not-computable' : 'drawn'}
      aria-labelledby={`${id}-title`}
    >
      <div className="figure__head">
        <h3 id={`${id}-title`} className="figure__title">
          <span className="figure__ref">{reference}</span> {title}
        </h3>
        <div className="figure__actions" hidden={Boolean(unavailable)}>
          <button type="button" className="button" onClick={() => void savePng()}>
            Download PNG
          </button>
          <button
            type="button"
            className="button"
            onClick={() => {
              download(`${filename}.csv`, toCSV(csv.header, csv.rows));
            }}
          >
            Download CSV
          </button>
        </div>
      </div>
      <FigureWarnings warnings={warnings} figure={title} />
      {summary}
      {controls && (
        <div className="figure__controls" role="group" aria-label={`Options of ${title}`}>
          {controls}
        </div>
      )}
      {unavailable ? (
        <p className="figure__unavailable status" data-not-computable={id}>
          Not computable yet: {unavailable}
        </p>
      ) : (
        <div className="figure__body">{children}</div>
      )}
      {note && !unavailable && (
        <p className="figure__note" data-figure-note={id}>
          {note}
        </p>
      )}
      <figcaption className="figure__caption">{caption}</figcaption>
      {error && (
        <p className="field-error" role="alert">
          PNG export failed: {error}
        </p>
      )}
      {table && !unavailable && (
        <details className="figure__data">
          <summary>Data table</summary>
          {table}
        </details>
      )}
    </figure>
  );
}

/**
 * A data table with one row of column headers; the body rows are given as children. `rows`
 * becomes `data-rows` (browser tests count rows by it).
 */
export function HeadedTable({
  label,
  header,
  children,
  className,
  rows,
}: {
  label: string;
  header: string[];
  children: ReactNode;
  className?: string;
  rows?: number;
}) {
  return (
    <div className="table-wrap">
      <table className={className ? `data-table ${className}` : 'data-table'} aria-label={label} data-rows={rows}>
        <thead>
          <tr>
            {header.map((h) => (
              <th key={h} scope="col">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** A plain data table of rows (for the "Data table" disclosure of a figure). */
export function DataTable({ label, header, rows }: { label: string; header: string[]; rows: Cell[][] }) {
  return (
    <HeadedTable label={label} header={header}>
      {rows.map((row, i) => (
        <tr key={i}>
          {row.map((cell, j) => (
            <td key={j} className={typeof cell === 'number' ? 'num' : undefined}>
              {typeof cell === 'number' ? (Number.isInteger(cell) ? cell : cell.toFixed(3)) : (cell ?? '—')}
            </td>
          ))}
        </tr>
      ))}
    </HeadedTable>
  );
}

/** Rasterises an SVG element to a PNG (white background) for "Download PNG". */
export async function svgToPng(svg: SVGSVGElement, scale = 2): Promise<Blob> {
  const clone = svg.cloneNode(true) as SVGSVGElement;
  clone.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  const { width, height } = svg.viewBox.baseVal.width ? svg.viewBox.baseVal : svg.getBoundingClientRect();
  const text = new XMLSerializer().serializeToString(clone);
  const image = new Image();
  image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(text)}`;
  await image.decode();
  const canvas = document.createElement('canvas');
  canvas.width = Math.ceil(width * scale);
  canvas.height = Math.ceil(height * scale);
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('no 2D canvas');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.drawImage(image, 0, 0, canvas.width, canvas.height);
  return new Promise((resolve, reject) => {
    canvas.toBlob((blob) => {
      if (blob) resolve(blob);
      else reject(new Error('the browser could not encode the PNG'));
    }, 'image/png');
  });
}
