/** `/console/studies/:id/exports` — the study's Exports tab: every download in one place. */
import { Link, useParams } from 'react-router';

import { studyPath, useApiQuery } from '../../api';
import type { StudyDetail } from '../../api';
import { ErrorMessage, Loading } from '../../components/StatusMessage';
import { StudyNav, useStudyId } from '../ui';
import { ExportsPanel } from './ExportsPanel';

export function ExportsPage() {
  const studyId = useStudyId(useParams().studyId);
  const study = useApiQuery<StudyDetail>(studyId === null ? null : studyPath(studyId));
  if (studyId === null) return <ErrorMessage title="Not a study" error={new Error('invalid study id')} />;
  return (
    <>
      <StudyNav studyId={studyId} title={study.data?.title} />
      {study.isError && <ErrorMessage title="Could not load the study" error={study.error} onRetry={() => void study.refetch()} />}
      {study.isPending && <Loading>Loading the study…</Loading>}
      {study.data && <ExportsPanel study={study.data} />}
      <p>
        <Link to={`/console/studies/${String(studyId)}/policy`}>Policy: KPI bounds per game class, raters and flow settings →</Link>
      </p>
    </>
  );
}
