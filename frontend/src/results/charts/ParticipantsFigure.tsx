/** The per-participant view: ratings per scenario, reliability with its reason, bias and inconsistency. */
import type { AnalysisDoc } from '../analysisTypes';
import type { Cell } from '../csv';
import { FIGURE_WHERE, warningsFor } from '../evidence';
import { participantRows, STATUS_TEXT } from '../participants';
import { signedIntraRule } from '../screening';
import { round } from '../transforms';
import type { TidyRating } from '../transforms';
import { tablesToPng } from './canvasTable';
import { fmt } from './common';
import { Figure, HeadedTable } from './Figure';

export function ParticipantsFigure({ doc, ratings, scenarios, ratingsError }: { doc: AnalysisDoc; ratings: TidyRating[] | null; scenarios: string[]; ratingsError: string | null }) {
  const rows = participantRows(doc, ratings);
  const subjectNote = doc.notes?.subject_model ?? (doc.subject_model?.raters.length === 0 ? 'the subject model could not be fitted' : null);
  const hasSubject = rows.some((r) => r.bias !== null);
  const header = ['Participant', 'Games', 'Sessions', 'Reliability', 'Why', 'ρ', 'Bias', 'Inconsistency', ...scenarios];
  const line = (r: (typeof rows)[number]) => [
    r.rater,
    r.games.join(', '),
    String(r.sessions),
    STATUS_TEXT[r.status],
    r.reason,
    round(r.rho, 3),
    round(r.bias, 2),
    round(r.inconsistency, 2),
    ...scenarios.map((s) => (r.ratings[s] ?? []).join(' ') || '—'),
  ];
  const csvRows: Cell[][] = rows.map((r) => [r.rater, r.games.join(' '), r.sessions, r.status, r.reason, fmt(r.rho), fmt(r.bias), fmt(r.inconsistency), ...scenarios.map((s) => (r.ratings[s] ?? []).join(' '))]);
  const counts = (['reliable', 'unreliable', 'not_assessable'] as const).map((s) => `${rows.filter((r) => r.status === s).length} ${STATUS_TEXT[s]}`).join(', ');
  const png = () => tablesToPng([{ title: counts, header, rows: rows.map(line) }], 'Participants');
  return (
    <Figure
      id="participants"
      reference="Explore"
      title="Participants: ratings, reliability and bias"
      caption={
        <>
          One row per participant ({counts}). Reliability is the intra-rater rule (
          {signedIntraRule(doc) ? <>ρ &lt; −{doc.reliability.cutoff}, with evidence that a random rater would not pass</> : <>|ρ| &gt; {doc.reliability.cutoff}</>}
          ); &quot;not assessable&quot; means the design gives the rule too little evidence for this participant (the reason says
          what is missing) — that is neither reliable nor unreliable. Bias and inconsistency come from the subject model (rating = quality + bias +
          inconsistency · noise).
        </>
      }
      points={rows.reduce((sum, r) => sum + r.n, 0)}
      csv={{ header: ['rater_id', 'games', 'sessions', 'status', 'reason', 'rho', 'bias', 'inconsistency', ...scenarios], rows: csvRows }}
      png={png}
      filename="participants"
      unavailable={rows.length === 0 ? 'no participant has rated yet' : null}
      warnings={warningsFor(doc, FIGURE_WHERE.participants)}
      note={
        [
          hasSubject ? '' : `Bias and inconsistency: not computable yet${subjectNote ? ` (${subjectNote})` : ''}.`,
          ratings === null ? (ratingsError ? `The ratings could not be loaded: ${ratingsError}.` : 'Loading the ratings…') : '',
        ]
          .filter(Boolean)
          .join(' ') || null
      }
    >
      <HeadedTable label="Participants" header={header} className="participants" rows={rows.length}>
        {rows.map((r) => (
          <tr key={r.rater} data-rater={r.rater} data-status={r.status}>
            {line(r).map((cell, j) =>
              j === 0 ? (
                <th key={j} scope="row">
                  {cell}
                </th>
              ) : (
                <td key={j} className={j === 3 ? `rater-status rater-status--${r.status}` : j >= 5 ? 'num' : undefined}>
                  {cell}
                </td>
              ),
            )}
          </tr>
        ))}
      </HeadedTable>
    </Figure>
  );
}
