import type { ReactNode } from 'react';
import { useParams } from 'react-router';

import { studyPath, useApiQuery } from '../api';
import type { StudyDetail } from '../api';
import { ErrorMessage, Loading } from '../components/StatusMessage';
import { StudyNav, useStudyId } from './ui';

/**
 * One tab of a study (`/console/studies/:studyId/...`): the study read from the route's id,
 * its tabs and title, the load error (with retry) or "Loading the study…", then
 * `children(study)` once it is loaded; `after(studyId)` shows whether it loaded or not.
 */
export function StudyTab({ children, after }: { children: (study: StudyDetail) => ReactNode; after?: (studyId: number) => ReactNode }) {
  const studyId = useStudyId(useParams().studyId);
  const study = useApiQuery<StudyDetail>(studyId === null ? null : studyPath(studyId));
  if (studyId === null) return <ErrorMessage title="Not a study" error={new Error('invalid study id')} />;
  return (
    <>
      <StudyNav studyId={studyId} title={study.data?.title} />
      {study.isError && <ErrorMessage title="Could not load the study" error={study.error} onRetry={() => void study.refetch()} />}
      {study.isPending && <Loading>Loading the study…</Loading>}
      {study.data && children(study.data)}
      {after?.(studyId)}
    </>
  );
}
