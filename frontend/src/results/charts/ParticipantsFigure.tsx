/** The per-participant view: ratings per scenario and item, reliability with its reason, bias and inconsistency. */
import type { AnalysisDoc } from '../analysisTypes';
import type { Cell } from '../csv';
import { FIGURE_WHERE, warningsFor } from '../evidence';
import { itemKeys, itemName, trainingCount } from '../participantRatings';
import type { ItemRating } from '../participantRatings';
import { participantRows, STATUS_TEXT } from '../participants';
import type { ParticipantRow } from '../participants';
import { signedIntraRule } from '../screening';
import { round } from '../transforms';
import { tablesToPng } from './canvasTable';
import { fmt } from './common';
import { Figure } from './Figure';
import { FIXED_HEADER, ParticipantsTable, valueCells, valueHeaders } from './ParticipantsTable';

export function ParticipantsFigure({ doc, ratings, scenarios, ratingsError }: { doc: AnalysisDoc; ratings: ItemRating[] | null; scenarios: string[]; ratingsError: string | null }) {
  const rows = participantRows(doc, ratings);
  const items = itemKeys((ratings ?? []).filter((r) => !r.training));
  const training = trainingCount(ratings ?? []);
  const subjectNote = doc.notes?.subject_model ?? (doc.subject_model?.raters.length === 0 ? 'the subject model could not be fitted' : null);
  const hasSubject = rows.some((r) => r.bias !== null);
  const fixed = (r: ParticipantRow) => [
    r.rater,
    r.games.join(', '),
    String(r.sessions),
    STATUS_TEXT[r.status],
    r.reason,
    round(r.rho, 3),
    round(r.bias, 2),
    round(r.inconsistency, 2),
  ];
  const header = [...FIXED_HEADER, ...valueHeaders(scenarios, items)];
  const csvRows: Cell[][] = rows.map((r) => [
    r.rater,
    r.games.join(' '),
    r.sessions,
    r.status,
    r.reason,
    fmt(r.rho),
    fmt(r.bias),
    fmt(r.inconsistency),
    ...valueCells(r, scenarios, items).map((v) => (v === '—' ? '' : v)),
  ]);
  const counts = (['reliable', 'unreliable', 'not_assessable'] as const).map((s) => `${rows.filter((r) => r.status === s).length} ${STATUS_TEXT[s]}`).join(', ');
  const png = () => tablesToPng([{ title: counts, header, rows: rows.map((r) => [...fixed(r), ...valueCells(r, scenarios, items)]) }], 'Participants');
  return (
    <Figure
      id="participants"
      reference="Explore"
      title="Participants: ratings, reliability and bias"
      caption={
        <>
          One row per participant ({counts}); per scenario{' '}
          {items.length > 1 ? <>one column per rating item ({items.map(itemName).join(', ')})</> : 'the rating'}, one value per session, as
          entered. Reliability is the intra-rater rule (
          {signedIntraRule(doc) ? <>ρ &lt; −{doc.reliability.cutoff}, with evidence that a random rater would not pass</> : <>|ρ| &gt; {doc.reliability.cutoff}</>}
          ); &quot;not assessable&quot; means the design gives the rule too little evidence for this participant (the reason says
          what is missing) — that is neither reliable nor unreliable. Bias and inconsistency come from the subject model (rating = quality + bias +
          inconsistency · noise).
        </>
      }
      points={rows.reduce((sum, r) => sum + r.n, 0)}
      csv={{ header: ['rater_id', 'games', 'sessions', 'status', 'reason', 'rho', 'bias', 'inconsistency', ...valueHeaders(scenarios, items)], rows: csvRows }}
      png={png}
      filename="participants"
      unavailable={rows.length === 0 ? 'no participant has rated yet' : null}
      warnings={warningsFor(doc, FIGURE_WHERE.participants)}
      note={
        [
          training > 0 ? `${training} training rating${training === 1 ? '' : 's'} not shown: the training rounds count nowhere (the analysis leaves them out).` : '',
          hasSubject ? '' : `Bias and inconsistency: not computable yet${subjectNote ? ` (${subjectNote})` : ''}.`,
          ratings === null ? (ratingsError ? `The ratings could not be loaded: ${ratingsError}.` : 'Loading the ratings…') : '',
        ]
          .filter(Boolean)
          .join(' ') || null
      }
    >
      <ParticipantsTable rows={rows} fixed={fixed} scenarios={scenarios} items={items} />
    </Figure>
  );
}
