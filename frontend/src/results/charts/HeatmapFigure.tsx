/** Rating pairs of two scenarios in the same session, per game (table 4.1: M1 × M2, fig. 4.8). */
import type { Cell } from '../csv';
import { ratingPairs } from '../transforms';
import type { TidyRating } from '../transforms';
import { tablesToPng } from './canvasTable';
import { fmt } from './common';
import { Figure } from './Figure';

// --- fig. 4.8 ---------------------------------------------------------------------------------

/** Rating pairs of two scenarios per game (table 4.1: M1 vs M2, fig. 4.8). */
export function HeatmapFigure({ ratings, games, raters, group, pair = ['M1', 'M2'] }: { ratings: TidyRating[]; games: string[]; raters: ReadonlySet<string> | null; group: string; pair?: [string, string] }) {
  const [A, B] = pair;
  const table41 = A === 'M1' && B === 'M2';
  const maps = ratingPairs(ratings, games, A, B, 5, raters);
  const scores = [1, 2, 3, 4, 5];
  const header = ['game', table41 ? 'm1' : A, table41 ? 'm2' : B, 'sessions', 'share'];
  const rows: Cell[][] = maps.flatMap((m) =>
    scores.flatMap((y) => scores.map((x) => [m.game, x, y, m.counts[y - 1]?.[x - 1] ?? 0, m.sessions ? fmt((m.counts[y - 1]?.[x - 1] ?? 0) / m.sessions) : 0])),
  );
  const shade = (share: number) => `rgba(31, 95, 168, ${Math.min(1, 0.08 + share * 1.6).toFixed(2)})`;
  const png = () =>
    tablesToPng(
      maps.map((m) => ({
        title: `${m.game} (n = ${m.sessions} sessions)`,
        header: [`${B} \\ ${A}`, ...scores.map(String)],
        rows: [...scores].reverse().map((y) => [String(y), ...scores.map((x) => String(m.counts[y - 1]?.[x - 1] ?? 0))]),
        fill: (r, c) => {
          if (c === 0) return null;
          const y = 5 - r;
          const v = m.counts[y - 1]?.[c - 1] ?? 0;
          return v && m.sessions ? shade(v / m.sessions) : null;
        },
        outline: (r, c) => c > 0 && 5 - r === c,
      })),
      table41 ? 'Fig. 4.8 — ratings of M1 (loss-dominated) vs M2 (delay-dominated)' : `Ratings of ${A} vs ${B} in the same session`,
    );
  return (
    <Figure
      id={table41 ? 'm1-m2-heatmap' : 'rating-pairs'}
      reference={table41 ? 'Fig. 4.8' : 'Compare'}
      title={table41 ? 'M1 vs M2: which impairment is worse?' : `${A} vs ${B}: which is rated worse?`}
      unavailable={maps.some((m) => m.sessions > 0) ? null : `no session has rated both ${A} and ${B} yet`}
      caption={
        <>
          Each cell counts the sessions that rated {table41 ? 'M1 (mixed, loss-dominated)' : A} with the column&apos;s score and{' '}
          {table41 ? 'M2 (mixed, delay-dominated)' : B} with the row&apos;s score; darker = more sessions ({group}). Outlined
          cells lie on the diagonal (equal ratings); cells right of it prefer {A}, cells left of it prefer {B}.
        </>
      }
      points={maps.length * 25}
      csv={{ header, rows }}
      png={png}
      filename={table41 ? 'fig-4-8-m1-m2-heatmap' : `rating-pairs-${A}-${B}`}
    >
      <div className="heatmaps">
        {maps.map((m) => (
          <div key={m.game} className="heatmap">
            <table className="heatmap__table" aria-label={`${A} vs ${B} ratings, ${m.game}`}>
              <caption>
                {m.game} — {m.sessions} sessions: {Math.round(m.m1Better * 100)} % prefer {A}, {Math.round(m.equal * 100)} %
                equal, {Math.round(m.m2Better * 100)} % prefer {B}
              </caption>
              <thead>
                <tr>
                  <th scope="col">
                    <span className="visually-hidden">{B} score by </span>
                    {B} ↓ / {A} →
                  </th>
                  {scores.map((x) => (
                    <th key={x} scope="col">
                      {x}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {[...scores].reverse().map((y) => (
                  <tr key={y}>
                    <th scope="row">{y}</th>
                    {scores.map((x) => {
                      const v = m.counts[y - 1]?.[x - 1] ?? 0;
                      const share = m.sessions ? v / m.sessions : 0;
                      return (
                        <td
                          key={x}
                          className={`heatmap__cell${x === y ? ' heatmap__cell--diagonal' : ''}${share > 0.3 ? ' heatmap__cell--dark' : ''}`}
                          style={v ? { background: shade(share) } : undefined}
                          data-cell={`${x},${y}`}
                        >
                          {v}
                          <span className="visually-hidden">
                            {' '}
                            sessions rated {A} {x} and {B} {y}
                          </span>
                        </td>
                      );
                    })}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
      </div>
    </Figure>
  );
}
