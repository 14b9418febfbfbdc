/**
 * The marginal views as a table (the figure's "table" view, every factor of one item; and
 * the "Data table" under its chart, the chosen factor): per factor a row group headed by
 * how its points were made and the ratings without a value, then one row per point and
 * game with n ratings, n raters, MOS, 95 % CI, SOS and the interval's status.
 */
import type { CanvasTable } from '../charts/canvasTable';
import type { ScaleRange } from '../evidence';
import { gameLabel } from '../factors';
import './marginals.css';
import { binningText, marginalSeries, marginalTitle, missingText, pointStatus, pointText, statusText } from './marginalsDoc';
import type { MarginalFactor, MarginalPoint, Marginals, ShownSeries } from './marginalsDoc';

const HEADER = ['Point', 'Game', 'n ratings', 'n raters', 'MOS', '95 % CI', 'SOS', 'Interval'];

const num = (v: number | null, digits = 2) => (v === null ? '—' : v.toFixed(digits));

function ciText(p: MarginalPoint): string {
  return p.ci95_low === null || p.ci95_high === null ? '—' : `${num(p.ci95_low)} – ${num(p.ci95_high)}`;
}

/** One row's cells as text (the HTML table and the PNG of the table view). */
function cells(f: MarginalFactor, s: ShownSeries, p: MarginalPoint, scale: ScaleRange): string[] {
  return [pointText(f, p), gameLabel(s.game), String(p.n), String(p.n_raters), num(p.mos), ciText(p), num(p.sos), statusText(p, scale)];
}

/** The row group's heading: the factor, how its points were made, the ratings in no point. */
function groupTitle(f: MarginalFactor, series: readonly ShownSeries[]): string {
  const nPoints = Math.max(0, ...series.map((s) => s.points.length));
  return [`${marginalTitle(f)}: ${binningText(f, nPoints)}.`, missingText(f, series)].filter(Boolean).join(' ');
}

export interface MarginalsTableProps {
  section: Marginals;
  item: string;
  factors: readonly MarginalFactor[];
  /** The game keys shown (`gameKeys` of factors.ts): each game and/or "all". */
  games: readonly string[];
  scale: ScaleRange;
  label: string;
}

/** The rows of every factor, point and game, as one accessible table with a row group per factor. */
export function MarginalsTable({ section, item, factors, games, scale, label }: MarginalsTableProps) {
  const groups = factors.map((f) => ({ f, series: marginalSeries(section, item, f.factor, games) }));
  const rows = groups.reduce((n, g) => n + g.series.reduce((m, s) => m + s.points.length, 0), 0);
  return (
    <div className="table-wrap">
      <table className="data-table marginals-table" aria-label={label} data-rows={rows}>
        <thead>
          <tr>
            {HEADER.map((h) => (
              <th key={h} scope="col">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        {groups.map(({ f, series }) => (
          <tbody key={f.factor} data-factor={f.factor} data-missing={series.reduce((n, s) => n + s.nMissing, 0)}>
            <tr>
              <th scope="colgroup" colSpan={HEADER.length} className="marginals-table__factor">
                {groupTitle(f, series)}
              </th>
            </tr>
            {series.flatMap((s) =>
              s.points.map((p) => (
                <tr key={`${s.game}-${p.label}`} data-game={s.game} data-point={p.label} data-status={pointStatus(p, scale) ?? 'none'}>
                  {cells(f, s, p, scale).map((text, j) =>
                    j === 0 ? (
                      <th key={j} scope="row">
                        {text}
                      </th>
                    ) : (
                      <td key={j} className={j >= 2 && j <= 6 ? 'num' : undefined}>
                        {text}
                      </td>
                    ),
                  )}
                </tr>
              )),
            )}
          </tbody>
        ))}
      </table>
    </div>
  );
}

/** The same table for the PNG export of the table view: one canvas table per factor. */
export function marginalsCanvasTables(section: Marginals, item: string, factors: readonly MarginalFactor[], games: readonly string[], scale: ScaleRange): CanvasTable[] {
  return factors.map((f) => {
    const series = marginalSeries(section, item, f.factor, games);
    return { title: groupTitle(f, series), header: HEADER, rows: series.flatMap((s) => s.points.map((p) => cells(f, s, p, scale))) };
  });
}
