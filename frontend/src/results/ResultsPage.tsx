import { useId, useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';

import { analysisJobInputCsvPath, apiKey, getText, studyExportCsvPath } from '../api';
import type { StudyDetail } from '../api';
import { StudyDryRunBanner } from '../console/provenance';
import { StudyTab } from '../console/StudyTab';
import { AnalysisProgress } from './AnalysisProgress';
import { docWarnings } from './evidence';
import { PlanningHint } from './PlanningHint';
import { WarningsPanel } from './WarningList';
import type { AnalysisDoc } from './analysisTypes';
import { emptyAnalysisDoc } from './emptyDoc';
import { ExplorerFigures } from './ExplorerFigures';
import './results.css';
import { parseCSVRecords } from './csv';
import { toItemRatings } from './participantRatings';
import { gameNames, scenarioCodes, toTidyRatings } from './transforms';
import type { TidyRating } from './transforms';
import { reliableRefusal, useAnalysis, usePastJobs } from './useAnalysis';
import { ItemResults } from './items/ItemResults';

/** `/console/studies/:id/results` — the results explorer (lazy-loaded with Chart.js). */
export default function ResultsPage() {
  return <StudyTab>{(study) => <Explorer study={study} />}</StudyTab>;
}

function Explorer({ study }: { study: StudyDetail }) {
  const [params, setParams] = useSearchParams();
  const game = params.get('game') ?? '';
  const raters = params.get('raters') === 'reliable' ? 'reliable' : 'all';
  const requestedVersion = Number(params.get('version') ?? study.version);
  const setParam = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    setParams(next, { replace: true });
  };

  // Earlier versions: the finished analyses stored for them (the data of an old version
  // cannot be re-analysed on its own).
  const pastJobs = usePastJobs(study.id);
  const versions = [...new Set([study.version, ...pastJobs.map((j) => j.study_version)])].sort((a, b) => b - a);
  const current = requestedVersion === study.version || !versions.includes(requestedVersion);
  const version = current ? study.version : requestedVersion;

  const all = useAnalysis(study.id, false, current);
  const reliable = useAnalysis(study.id, true, current && all.state.status === 'done');
  const docs = useMemo(() => {
    if (current) {
      return {
        all:
          all.state.status === 'done'
            ? all.state.job.result
            : all.state.status === 'no-ratings'
              ? emptyAnalysisDoc(Object.fromEntries(study.games.map((g) => [g.name, g.pace])))
              : null,
        reliable: reliable.state.status === 'done' ? reliable.state.job.result : null,
      };
    }
    const pick = (only: boolean) => pastJobs.find((j) => j.study_version === version && j.reliable_only === only)?.result ?? null;
    return { all: pick(false), reliable: pick(true) };
  }, [current, all.state, reliable.state, pastJobs, version, study.games]);

  // The tidy ratings (for the M1 × M2 pairs, which the analysis document does not keep):
  // for the current version the table the analysis read (stored with its job, so a visit
  // does not rebuild it), else (an old version, no ratings, a failed analysis) the
  // study's export; nothing while the analysis runs.
  const analysing = current && (all.state.status === 'starting' || all.state.status === 'running');
  const csvPath =
    current && all.state.status === 'done'
      ? analysisJobInputCsvPath(all.state.job.id)
      : analysing
        ? null
        : studyExportCsvPath(study.id);
  const csv = useQuery({
    queryKey: apiKey(csvPath ?? studyExportCsvPath(study.id)),
    queryFn: ({ signal }) => getText(csvPath ?? studyExportCsvPath(study.id), { signal }),
    enabled: csvPath !== null,
  });
  const records = useMemo(() => (csv.data === undefined ? null : parseCSVRecords(csv.data)), [csv.data]);
  const ratings = useMemo<TidyRating[] | null>(() => (records ? toTidyRatings(records) : null), [records]);
  const itemRatings = useMemo(() => (records ? toItemRatings(records) : null), [records]);
  const ratingsError = csv.error ? csv.error.message : null;

  // "Reliable raters only" refused by the analysis (too few reliable raters): said, and all raters shown.
  const refusal = current ? reliableRefusal(all.state, reliable.state) : null;
  // Until (or unless) the reliable-raters analysis is there, the page shows all raters and says so.
  const showingReliable = raters === 'reliable' && docs.reliable !== null;
  const primary: AnalysisDoc | null = showingReliable ? docs.reliable : docs.all;
  const gameId = useId();
  const ratersId = useId();
  const versionId = useId();
  const allGames = docs.all ? gameNames(docs.all, study.games.map((g) => g.name)) : study.games.map((g) => g.name);
  const games = game && allGames.includes(game) ? [game] : allGames;
  const scenarios = primary ? scenarioCodes(primary, study.scenarios.map((s) => s.code)) : [];
  const paceOf = (name: string) => docs.all?.meta.games[name] ?? study.games.find((g) => g.name === name)?.pace;
  const paces = game ? [paceOf(game) ?? 'all'] : null;
  const groupText = showingReliable ? 'reliable raters only' : 'all raters';
  const reliableSet = showingReliable && docs.all ? new Set(docs.all.reliability.reliable_raters) : null;

  return (
    <div className="explorer">
      <StudyDryRunBanner study={study} />
      <p className="explorer__links">
        <Link to={`/console/studies/${study.id}/policy`}>Policy: KPI bounds and controller downloads →</Link>{' '}
        <Link to={`/console/studies/${study.id}/exports`}>Exports: ratings, sureal, JSON and policy files →</Link>
      </p>
      <div className="explorer__toolbar" role="group" aria-label="Filters">
        <div className="field">
          <label htmlFor={gameId}>Game</label>
          <select id={gameId} value={game} onChange={(e) => { setParam('game', e.target.value); }}>
            <option value="">All games</option>
            {allGames.map((g) => (
              <option key={g} value={g}>
                {g} ({paceOf(g)})
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={ratersId}>Raters</label>
          <select id={ratersId} value={raters} onChange={(e) => { setParam('raters', e.target.value === 'reliable' ? 'reliable' : ''); }}>
            <option value="all">All raters</option>
            <option value="reliable">Reliable raters only (intra-rater rule)</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor={versionId}>Study version</label>
          <select id={versionId} value={version} onChange={(e) => { setParam('version', Number(e.target.value) === study.version ? '' : e.target.value); }}>
            {versions.map((v) => (
              <option key={v} value={v}>
                {v === study.version ? `${v} (current)` : `${v} (stored analysis)`}
              </option>
            ))}
          </select>
        </div>
        {docs.all && (
          <p className="explorer__summary" data-testid="analysis-summary">
            {docs.all.meta.n_ratings} ratings · {docs.all.meta.n_raters} raters · {docs.all.meta.n_sessions} sessions ·{' '}
            {docs.all.reliability.reliable_raters.length} reliable raters (
            {docs.all.reliability.intra.filter((r) => r.status === 'not_assessable').length} not assessable)
          </p>
        )}
      </div>

      {current && <AnalysisProgress state={all.state} onRetry={all.retry} />}
      {current && all.state.status === 'done' && reliable.state.status !== 'done' && reliable.state.status !== 'failed' && (
        <AnalysisProgress state={reliable.state} onRetry={reliable.retry} />
      )}
      {refusal !== null && raters === 'reliable' && (
        <div className="banner banner--warn" role="alert" data-reliable-refused>
          <p>
            <strong>Reliable raters only: the analysis refuses.</strong> {refusal}
          </p>
          <p>The figures below show all raters.</p>
        </div>
      )}
      {refusal !== null && raters !== 'reliable' && (
        <p className="banner banner--warn" role="status" data-reliable-refused>
          A reliable-raters-only analysis is refused: {refusal}
        </p>
      )}
      {current && reliable.state.status === 'failed' && refusal === null && (
        <p className="banner banner--warn" role="status">
          The reliable-raters analysis is not available: {reliable.state.message}
        </p>
      )}
      {!current && !docs.all && <p className="banner banner--warn">No stored analysis of version {version}.</p>}
      {all.state.status === 'done' && all.state.job.warnings.length > 0 && (
        <details className="banner banner--warn">
          <summary>{all.state.job.warnings.length} warning(s) from the analysis</summary>
          <ul>
            {all.state.job.warnings.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        </details>
      )}

      {docs.all && raters === 'reliable' && !docs.reliable && refusal === null && (
        <p className="banner banner--warn">Showing all raters until the reliable-raters analysis is ready.</p>
      )}
      <WarningsPanel warnings={docWarnings(primary)} />
      <PlanningHint doc={docs.all} />
      {primary?.meta.n_ratings === 0 && (
        <p className="banner banner--warn" role="status" data-empty-study>
          No ratings yet: the figures fill in once sessions are completed (Sessions tab).
        </p>
      )}
      {primary && (
        <ExplorerFigures
          docs={docs}
          primary={primary}
          games={games}
          scenarios={scenarios}
          group={groupText}
          paces={paces}
          ratings={ratings}
          itemRatings={itemRatings}
          ratingsError={ratingsError}
          reliableSet={reliableSet}
        />
      )}
      {primary && <ItemResults doc={primary} />}
      {!primary && all.state.status === 'idle' && !current && (
        <p>
          <Link to="?">Back to the current version</Link>
        </p>
      )}
    </div>
  );
}
