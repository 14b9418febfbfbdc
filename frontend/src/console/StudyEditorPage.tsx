import { useQueryClient } from '@tanstack/react-query';
import { useParams } from 'react-router';

import { apiKey, studiesPath, studyPath, useApiQuery } from '../api';
import type { StudyDetail } from '../api';
import { ErrorMessage, Loading } from '../components/StatusMessage';
import { PreviewLink } from '../participant/preview/PreviewLink';
import { CloneStudyForm } from './CloneStudyForm';
import { AnalysisOnlyDesign } from './studyEditor/AnalysisOnlyDesign';
import { GamesEditor } from './studyEditor/GamesEditor';
import { QuestionnaireEditor } from './studyEditor/QuestionnaireEditor';
import { RatingItemsEditor } from './studyEditor/RatingItemsEditor';
import { ScenariosEditor } from './studyEditor/ScenariosEditor';
import { SettingsForm } from './studyEditor/SettingsForm';
import { StudyNav, useStudyId } from './ui';

/**
 * `/console/studies/:id` — the study's design: settings, games, scenarios (with the design generator), rating items,
 * questionnaire, clone. An analysis-only study (imported from a dataset) is shown read-only: its design is the data's.
 */
export function StudyEditorPage() {
  const studyId = useStudyId(useParams().studyId);
  const study = useApiQuery<StudyDetail>(studyId === null ? null : studyPath(studyId));
  const queryClient = useQueryClient();
  // After a save the study reloads and keeps its data meanwhile, so the forms (and their
  // "Saved.") stay in place; the studies list reloads too (its counts and titles change).
  const reload = () => void queryClient.invalidateQueries({ queryKey: apiKey(studiesPath()) });
  if (studyId === null) return <ErrorMessage title="Not a study" error={new Error('invalid study id')} />;
  const data = study.data;
  if (!data) {
    if (study.isError) return <ErrorMessage title="Could not load the study" error={study.error} onRetry={() => void study.refetch()} />;
    return <Loading>Loading the study…</Loading>;
  }
  if (data.analysis_only) {
    return (
      <>
        <StudyNav studyId={studyId} title={data.title} />
        <AnalysisOnlyDesign study={data} />
      </>
    );
  }
  return (
    <>
      <StudyNav studyId={studyId} title={data.title} />
      <p className="muted">
        Study version {data.version}. Once a study has sessions, changing a scenario keeps the old row for its ratings and
        raises the version; games with sessions cannot change.
      </p>
      <PreviewLink studyId={studyId} />
      <SettingsForm study={data} onSaved={reload} />
      <GamesEditor study={data} onChanged={reload} />
      <ScenariosEditor study={data} onChanged={reload} />
      <RatingItemsEditor study={data} onSaved={reload} />
      <QuestionnaireEditor study={data} onSaved={reload} />
      <CloneStudyForm study={data} />
    </>
  );
}
