import { useId } from 'react';
import { useSearchParams } from 'react-router';

import type { UseQueryResult } from '@tanstack/react-query';

import { studiesPath, studyPath, useApiQuery } from '../api';
import type { StudyDetail, StudySummary } from '../api';
import { GamesTable } from '../components/GamesTable';
import { ScenariosTable } from '../components/ScenariosTable';
import { EmptyState, ErrorMessage, Loading } from '../components/StatusMessage';
import { StudyDryRunBanner } from '../console/provenance';

/**
 * `/` — overview of a study: its games and network scenarios.
 * With several studies, a selector picks one; the choice is kept in `?study=<id>`.
 */
export function StudyOverviewPage() {
  const studies = useApiQuery<StudySummary[]>(studiesPath(), { keepPrevious: true });
  const [searchParams, setSearchParams] = useSearchParams();
  const selectId = useId();

  const list = studies.data ?? [];
  const requested = Number(searchParams.get('study'));
  const selected = list.find((s) => s.id === requested) ?? list[0];
  const study = useApiQuery<StudyDetail>(selected ? studyPath(selected.id) : null);

  if (studies.isPending) return <Loading>Loading studies…</Loading>;
  if (studies.isError) {
    return <ErrorMessage title="Could not load studies" error={studies.error} onRetry={() => void studies.refetch()} />;
  }
  if (!selected) {
    return (
      <EmptyState>
        <p>
          <strong>No study yet</strong> — load the example with <code>make demo</code>.
        </p>
      </EmptyState>
    );
  }

  return (
    <>
      {list.length > 1 && (
        <div className="study-picker">
          <label htmlFor={selectId}>Study</label>
          <select
            id={selectId}
            value={selected.id}
            onChange={(event) => {
              setSearchParams({ study: event.target.value });
            }}
          >
            {list.map((s) => (
              <option key={s.id} value={s.id}>
                {s.title}
              </option>
            ))}
          </select>
        </div>
      )}
      <StudyDetailView summary={selected} state={study} />
    </>
  );
}

function StudyDetailView({ summary, state }: { summary: StudySummary; state: UseQueryResult<StudyDetail> }) {
  if (state.isPending) return <Loading>Loading “{summary.title}”…</Loading>;
  if (state.isError) {
    return <ErrorMessage title="Could not load the study" error={state.error} onRetry={() => void state.refetch()} />;
  }
  const detail = state.data;
  return (
    <article className="study" aria-labelledby="study-title">
      <header className="study__header">
        <h2 id="study-title">{detail.title}</h2>
        {detail.description && <p className="study__description">{detail.description}</p>}
        <p className="muted">
          <code>{detail.slug}</code> · {detail.games.length} {detail.games.length === 1 ? 'game' : 'games'} ·{' '}
          {detail.scenarios.length} {detail.scenarios.length === 1 ? 'scenario' : 'scenarios'}
        </p>
      </header>
      <StudyDryRunBanner study={detail} />
      <section aria-labelledby="games-heading">
        <h3 id="games-heading">Games</h3>
        <GamesTable games={detail.games} />
      </section>
      <section aria-labelledby="scenarios-heading">
        <h3 id="scenarios-heading">Network scenarios</h3>
        <p className="muted">
          Impairments applied per direction by the network emulator. The baseline scenario is the unimpaired reference.
        </p>
        <ScenariosTable scenarios={detail.scenarios} />
      </section>
    </article>
  );
}
