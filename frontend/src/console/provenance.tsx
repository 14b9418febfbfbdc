/**
 * Provenance banners (issue 13): a dry-run netem agent records the impairments and applies
 * nothing to the network, so ratings taken on it rate an unimpaired game. The console says
 * so while a session runs on one; the study overview and the results say how many ratings
 * of the study were taken that way (`ratings_by_backend` of the study).
 */
import type { Session, StudyDetail } from '../api';

export const DRY_RUN = 'dry-run';

/** The one rule of the study's rating counts, said where they are shown. */
export const TRAINING_NOT_COUNTED = 'Training ratings are not counted (they count nowhere in the analysis).';

/** The session console's banner when the last applied (or refused) scenario came from a dry-run agent. */
export function SessionDryRunBanner({ session }: { session: Pick<Session, 'applied_backend' | 'applied_agent_version' | 'station_name'> }) {
  if (session.applied_backend !== DRY_RUN) return null;
  const station = session.station_name ? `station “${session.station_name}”` : 'this station';
  const version = session.applied_agent_version ? ` (agent ${session.applied_agent_version})` : '';
  return (
    <div className="banner banner--warn" role="alert" data-testid="dry-run-banner">
      <p>
        <strong>Dry run: the agent at {station} applies nothing to the network{version}.</strong>
      </p>
      <p>
        It records the impairment it was asked for; the participant plays unimpaired. Ratings of this session are marked{' '}
        <code>dry-run</code> in the exports — use it for rehearsals only.
      </p>
    </div>
  );
}

/**
 * Ratings taken under a dry-run agent, of all the study's ratings. Training ratings are in
 * neither count (the backend leaves them out of `ratings_by_backend`): they count nowhere in
 * the analysis, so "M ratings" here is the results' "M ratings" (issue 35, "Counts disagree").
 */
export function dryRunCounts(byBackend: StudyDetail['ratings_by_backend'] | undefined): { dryRun: number; total: number } {
  const counts = Object.values(byBackend ?? {});
  return { dryRun: byBackend?.[DRY_RUN] ?? 0, total: counts.reduce((a, b) => a + b, 0) };
}

/** The study overview's and the results explorer's banner when any rating was taken under a dry-run agent. */
export function StudyDryRunBanner({ study }: { study: Pick<StudyDetail, 'ratings_by_backend' | 'rehearsal'> }) {
  const { dryRun, total } = dryRunCounts(study.ratings_by_backend);
  if (dryRun === 0) return null;
  return (
    <div className="banner banner--warn" role="alert" data-testid="study-dry-run-banner">
      <p>
        <strong>
          {dryRun} of {total} {total === 1 ? 'rating was' : 'ratings were'} taken on a dry-run agent: no impairment reached the
          network for {dryRun === 1 ? 'it' : 'them'}.
        </strong>
      </p>
      <p>
        {study.rehearsal ? 'The study is marked as a rehearsal. ' : ''}
        {TRAINING_NOT_COUNTED} The exports mark them (<code>agent_backend</code> = <code>dry-run</code>); leave them out of the results of a real study.
      </p>
    </div>
  );
}
