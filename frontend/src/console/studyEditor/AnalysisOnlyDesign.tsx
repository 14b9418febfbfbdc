/**
 * The design of an analysis-only study (imported from a dataset, `analysis_only: true`),
 * read-only: its games, rating items, questionnaire and conditions are the data's, and the
 * backend refuses every change of them (409, qoelab.studies.analysis_only). One line says why
 * and links to the results; the clone form stays (a clone is a runnable lab study of at
 * most the registry's `max_scenarios` scenarios).
 */
import type { ReactNode } from 'react';
import { Link } from 'react-router';

import { factorsPath, useApiQuery } from '../../api';
import type { FactorCatalog, Question, StudyDetail } from '../../api';
import { GamesTable } from '../../components/GamesTable';
import { ScenariosTable } from '../../components/ScenariosTable';
import { CloneStudyForm } from '../CloneStudyForm';

/** The conditions listed in the editor (an import may have thousands: the results show all). */
export const SHOWN_CONDITIONS = 100;

/** The one-line note of an analysis-only study: why, and a link to its results. */
export function AnalysisOnlyNote({ studyId, children }: { studyId: number; children: ReactNode }) {
  return (
    <p className="banner" role="note" data-testid="analysis-only-note">
      Imported from a dataset: this study is analysis-only — {children}{' '}
      <Link to={`/console/studies/${studyId}/results`}>See its results</Link>.
    </p>
  );
}

export function AnalysisOnlyDesign({ study }: { study: StudyDetail }) {
  const catalog = useApiQuery<FactorCatalog>(factorsPath());
  const shown = study.scenarios.slice(0, SHOWN_CONDITIONS);
  const caption =
    study.scenarios.length > shown.length
      ? `Conditions (${study.scenarios.length}; the first ${shown.length} shown)`
      : `Conditions (${study.scenarios.length})`;
  const limit = catalog.data?.max_scenarios;
  return (
    <>
      <AnalysisOnlyNote studyId={study.id}>its design is the data&apos;s, so it is shown read-only.</AnalysisOnlyNote>
      {study.description && <p>{study.description}</p>}
      <section aria-labelledby="games-heading">
        <h3 id="games-heading">Games</h3>
        <GamesTable games={study.games} />
      </section>
      <section aria-labelledby="items-heading">
        <h3 id="items-heading">Rating items</h3>
        <RatingItemsTable study={study} />
      </section>
      {study.questionnaire.length > 0 && (
        <section aria-labelledby="questions-heading">
          <h3 id="questions-heading">Questionnaire (context and answers per session)</h3>
          <QuestionsTable study={study} />
        </section>
      )}
      <section aria-labelledby="scenarios-heading">
        <h3 id="scenarios-heading">Conditions</h3>
        {catalog.data ? (
          <ScenariosTable scenarios={shown} factors={catalog.data.factors} caption={caption} />
        ) : (
          <ScenariosTable scenarios={shown} caption={caption} />
        )}
      </section>
      <p className="muted">
        A clone is a runnable lab study with this design, to collect new ratings
        {limit === undefined ? '' : ` (at most ${limit} scenarios)`}.
      </p>
      <CloneStudyForm study={study} />
    </>
  );
}

function RatingItemsTable({ study }: { study: StudyDetail }) {
  const acceptance = study.acceptance as { item?: string; min?: number };
  return (
    <div className="table-wrap">
      <table className="data-table" aria-label="Rating items">
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col">Question</th>
            <th scope="col">Scale</th>
            <th scope="col">Acceptable</th>
          </tr>
        </thead>
        <tbody>
          {study.rating_items.map((item) => (
            <tr key={item.key}>
              <th scope="row">{item.key}</th>
              <td>{item.question.en}</td>
              <td>
                {item.scale.kind} {item.scale.min}–{item.scale.max}
              </td>
              <td>{acceptance.item === item.key ? (acceptance.min === undefined ? 'yes' : `from ${acceptance.min}`) : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function QuestionsTable({ study }: { study: StudyDetail }) {
  return (
    <div className="table-wrap">
      <table className="data-table" aria-label="Questionnaire">
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col">Kind</th>
            <th scope="col">Answers</th>
          </tr>
        </thead>
        <tbody>
          {study.questionnaire.map((q) => (
            <tr key={q.key}>
              <th scope="row">{q.key}</th>
              <td>{q.kind}</td>
              <td>{answers(q)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A question's answers in a few words: its choices (the first ten), or its range. */
function answers(q: Question): string {
  if (q.choices) return q.choices.length > 10 ? `${q.choices.slice(0, 10).join(', ')}, … (${q.choices.length})` : q.choices.join(', ');
  return q.min !== undefined || q.max !== undefined ? `${q.min ?? ''}–${q.max ?? ''}` : '';
}
