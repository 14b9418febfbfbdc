import { useState } from 'react';
import { Link, useParams } from 'react-router';

import { sessionsPath, studyExportCsvPath, studyPath, useApiQuery } from '../api';
import type { Session, StudyDetail } from '../api';
import { PaceBadge } from '../components/PaceBadge';
import { ErrorMessage, Loading } from '../components/StatusMessage';
import { AnalysisProgress } from '../results/AnalysisProgress';
import { useAnalysis } from '../results/useAnalysis';
import { ImportRatingsForm } from './ImportRatings';
import { flaggedRaters, ratingsPerScenario, sessionsPerGame } from './progress';
import { StudyNav, useStudyId } from './ui';
import { WithdrawalPanel } from './withdraw/WithdrawalPanel';

/** `/console/studies/:id/progress` — how far the study is, and who rates unreliably. */
export function ProgressPage() {
  const studyId = useStudyId(useParams().studyId);
  const study = useApiQuery<StudyDetail>(studyId === null ? null : studyPath(studyId));
  const sessions = useApiQuery<Session[]>(studyId === null ? null : sessionsPath(studyId), { keepPrevious: true });
  if (studyId === null) return <ErrorMessage title="Not a study" error={new Error('invalid study id')} />;
  return (
    <>
      <StudyNav studyId={studyId} title={study.data?.title} />
      {study.isError && <ErrorMessage title="Could not load the study" error={study.error} onRetry={() => void study.refetch()} />}
      {sessions.isError && (
        <ErrorMessage title="Could not load sessions" error={sessions.error} onRetry={() => void sessions.refetch()} />
      )}
      {(study.isPending || sessions.isPending) && !study.isError && !sessions.isError && <Loading>Loading progress…</Loading>}
      {study.data && sessions.data && (
        <>
          <SessionsPerGame study={study.data} sessions={sessions.data} />
          <RatingsPerScenario study={study.data} sessions={sessions.data} />
          <UnreliableRaters studyId={studyId} hasRatings={sessions.data.some((s) => s.state === 'completed')} />
        </>
      )}
      <WithdrawalPanel studyId={studyId} />
      <ImportExport studyId={studyId} />
    </>
  );
}

function SessionsPerGame({ study, sessions }: { study: StudyDetail; sessions: Session[] }) {
  const rows = sessionsPerGame(study, sessions);
  return (
    <section aria-labelledby="per-game">
      <h3 id="per-game">Sessions per game</h3>
      <div className="table-wrap">
        <table className="data-table" aria-label="Sessions per game">
          <thead>
            <tr>
              <th scope="col">Game</th>
              <th scope="col">Pace</th>
              <th scope="col" className="num">Completed</th>
              <th scope="col" className="num">of which imported</th>
              <th scope="col" className="num">Running</th>
              <th scope="col" className="num">Aborted</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.game}>
                <th scope="row">{row.game}</th>
                <td>
                  <PaceBadge pace={row.pace as 'fast' | 'medium' | 'slow'} />
                </td>
                <td className="num">{row.completed}</td>
                <td className="num">{row.imported}</td>
                <td className="num">{row.running}</td>
                <td className="num">{row.aborted}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function RatingsPerScenario({ study, sessions }: { study: StudyDetail; sessions: Session[] }) {
  const { codes, games, counts, totals } = ratingsPerScenario(study, sessions);
  const max = Math.max(1, ...Object.values(totals));
  return (
    <section aria-labelledby="per-scenario">
      <h3 id="per-scenario">Ratings per scenario</h3>
      <div className="table-wrap">
        <table className="data-table" aria-label="Ratings per scenario">
          <thead>
            <tr>
              <th scope="col">Scenario</th>
              {games.map((g) => (
                <th key={g} scope="col" className="num">
                  {g}
                </th>
              ))}
              <th scope="col" className="num">
                All games
              </th>
              <th scope="col">
                <span className="visually-hidden">Bar</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {codes.map((code) => (
              <tr key={code}>
                <th scope="row">
                  <code>{code}</code>
                </th>
                {games.map((g) => (
                  <td key={g} className="num">
                    {counts[code]?.[g] ?? 0}
                  </td>
                ))}
                <td className="num">{totals[code] ?? 0}</td>
                <td className="bar-cell" aria-hidden="true">
                  <span className="bar" style={{ width: `${(100 * (totals[code] ?? 0)) / max}%` }} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function UnreliableRaters({ studyId, hasRatings }: { studyId: number; hasRatings: boolean }) {
  const [requested, setRequested] = useState(false);
  const { state, retry } = useAnalysis(studyId, false, requested);
  const doc = state.status === 'done' ? state.job.result : null;
  const flagged = flaggedRaters(doc?.reliability.rejected_by_rule);
  return (
    <section aria-labelledby="unreliable">
      <h3 id="unreliable">Raters flagged as unreliable</h3>
      <p className="muted">
        Screening of the completed sessions: intra-rater Spearman |ρ| of score against impairment within delay-only and
        loss-only scenarios (cut-off 0.6, as in the source study), ITU-T P.913 rater screening, and straight-lining.
      </p>
      {!requested && (
        <button type="button" className="button" disabled={!hasRatings} onClick={() => { setRequested(true); }}>
          {hasRatings ? 'Screen the raters now' : 'No completed session to screen yet'}
        </button>
      )}
      {requested && <AnalysisProgress state={state} onRetry={retry} />}
      {doc && (
        <>
          <p>
            {doc.reliability.reliable_raters.length} of {doc.meta.n_raters} raters pass the intra-rater rule;{' '}
            {flagged.length} flagged by at least one rule.
          </p>
          {flagged.length > 0 && (
            <div className="table-wrap">
              <table className="data-table" aria-label="Flagged raters">
                <thead>
                  <tr>
                    <th scope="col">Rater</th>
                    <th scope="col">Flagged by</th>
                  </tr>
                </thead>
                <tbody>
                  {flagged.map((f) => (
                    <tr key={f.rater}>
                      <th scope="row">{f.rater}</th>
                      <td>{f.rules.join('; ')}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <p>
            <Link to={`/console/studies/${studyId}/results`}>Open the results explorer →</Link>
          </p>
        </>
      )}
    </section>
  );
}

function ImportExport({ studyId }: { studyId: number }) {
  return (
    <section aria-labelledby="data-heading">
      <h3 id="data-heading">Data</h3>
      <p>
        <a className="button" href={studyExportCsvPath(studyId)} download>
          Download the ratings (tidy CSV)
        </a>
      </p>
      <ImportRatingsForm studyId={studyId} />
    </section>
  );
}
