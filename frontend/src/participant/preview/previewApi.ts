/** The preview's one request: `GET /api/v1/studies/<id>/preview/` (researcher's cookie). */
import { getJSON } from '../../api/client';
import type { components } from '../../api/schema';
import type { ParticipantView } from '../api';

/** The session id of every preview screen (no session has it). */
export const PREVIEW_SESSION = 0;

export interface PreviewScreen {
  title: string;
  view: ParticipantView;
}

type Raw = components['schemas']['StudyPreview'];

export async function loadPreview(studyId: number, signal?: AbortSignal): Promise<PreviewScreen[]> {
  const body = await getJSON<Raw>(`/api/v1/studies/${studyId}/preview/`, signal ? { signal } : {});
  // Each view is what the participant's API answers in that step (built by the same rules).
  return body.screens.map((screen) => ({ title: screen.title, view: screen.view as unknown as ParticipantView }));
}
