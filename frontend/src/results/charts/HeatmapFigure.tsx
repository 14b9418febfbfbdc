/** The M1 × M2 heat map of rating pairs per game (fig. 4.8). */
import type { Cell } from '../csv';
import { ratingPairs } from '../transforms';
import type { TidyRating } from '../transforms';
import { tablesToPng } from './canvasTable';
import { fmt } from './common';
import { Figure } from './Figure';

// --- fig. 4.8 ---------------------------------------------------------------------------------

export function HeatmapFigure({ ratings, games, raters, group }: { ratings: TidyRating[]; games: string[]; raters: ReadonlySet<string> | null; group: string }) {
  const maps = ratingPairs(ratings, games, 'M1', 'M2', 5, raters);
  const scores = [1, 2, 3, 4, 5];
  const header = ['game', 'm1', 'm2', 'sessions', 'share'];
  const rows: Cell[][] = maps.flatMap((m) =>
    scores.flatMap((y) => scores.map((x) => [m.game, x, y, m.counts[y - 1]?.[x - 1] ?? 0, m.sessions ? fmt((m.counts[y - 1]?.[x - 1] ?? 0) / m.sessions) : 0])),
  );
  const shade = (share: number) => `rgba(31, 95, 168, ${Math.min(1, 0.08 + share * 1.6).toFixed(2)})`;
  const png = () =>
    tablesToPng(
      maps.map((m) => ({
        title: `${m.game} (n = ${m.sessions} sessions)`,
        header: ['M2 \\ M1', ...scores.map(String)],
        rows: [...scores].reverse().map((y) => [String(y), ...scores.map((x) => String(m.counts[y - 1]?.[x - 1] ?? 0))]),
        fill: (r, c) => {
          if (c === 0) return null;
          const y = 5 - r;
          const v = m.counts[y - 1]?.[c - 1] ?? 0;
          return v && m.sessions ? shade(v / m.sessions) : null;
        },
        outline: (r, c) => c > 0 && 5 - r === c,
      })),
      'Fig. 4.8 — ratings of M1 (loss-dominated) vs M2 (delay-dominated)',
    );
  return (
    <Figure
      id="m1-m2-heatmap"
      reference="Fig. 4.8"
      title="M1 vs M2: which impairment is worse?"
      caption={
        <>
          Each cell counts the sessions that rated M1 (mixed, loss-dominated) with the column&apos;s score and M2 (mixed,
          delay-dominated) with the row&apos;s score; darker = more sessions ({group}). Outlined cells lie on the diagonal
          (equal ratings); cells right of it prefer M1, cells left of it prefer M2.
        </>
      }
      points={maps.length * 25}
      csv={{ header, rows }}
      png={png}
      filename="fig-4-8-m1-m2-heatmap"
    >
      <div className="heatmaps">
        {maps.map((m) => (
          <div key={m.game} className="heatmap">
            <table className="heatmap__table" aria-label={`M1 vs M2 ratings, ${m.game}`}>
              <caption>
                {m.game} — {m.sessions} sessions: {Math.round(m.m1Better * 100)} % prefer M1, {Math.round(m.equal * 100)} %
                equal, {Math.round(m.m2Better * 100)} % prefer M2
              </caption>
              <thead>
                <tr>
                  <th scope="col">
                    <span className="visually-hidden">M2 score by </span>M2 ↓ / M1 →
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
                            sessions rated M1 {x} and M2 {y}
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
