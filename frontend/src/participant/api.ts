/**
 * The participant's API: `/api/v1/participant/sessions/<id>/…` with the session's token in
 * `X-Participant-Token`. No cookies, no account, nothing that names the scenario.
 */
import { getJSON, sendJSON } from '../api/client';
import type { Lang } from '../shared/participantLink';

export type Step =
  | 'waiting'
  | 'questionnaire'
  | 'free_play'
  | 'preparing'
  | 'playing'
  | 'rating'
  | 'post_questions'
  | 'thanks'
  | 'paused'
  | 'ended';

export interface StudyQuestion {
  key: string;
  phase: 'pre' | 'post';
  kind: 'choice' | 'text' | 'integer' | 'boolean';
  text: string;
  choices?: string[];
  min?: number;
  max?: number;
  required?: boolean;
}

/** `GET /api/v1/participant/sessions/<id>/` */
export interface ParticipantView {
  session: number;
  step: Step;
  revision: number;
  study_title: string;
  /** The study's language: the screens start in it unless the participant or the link chose another. */
  language: Lang;
  game: string;
  position: number | null;
  scenario_count: number;
  seconds_remaining: number | null;
  can_continue: boolean;
  needs: { consent?: boolean; age?: boolean; skill?: boolean };
  questions: StudyQuestion[];
  scale: { score: number; label: string }[];
  message: string;
  poll_interval_ms: number;
}

export interface RateResponse {
  created: boolean;
  position: number;
  score: number;
  session: ParticipantView;
}

export class ParticipantApi {
  constructor(
    readonly sessionId: number,
    private readonly token: string,
  ) {}

  private get base(): string {
    return `/api/v1/participant/sessions/${this.sessionId}/`;
  }

  private get headers(): Record<string, string> {
    return { 'X-Participant-Token': this.token };
  }

  view(signal?: AbortSignal): Promise<ParticipantView> {
    return getJSON<ParticipantView>(this.base, signal ? { signal, headers: this.headers } : { headers: this.headers });
  }

  questionnaire(body: Record<string, unknown>): Promise<ParticipantView> {
    return sendJSON<ParticipantView>('POST', `${this.base}questionnaire/`, body, { headers: this.headers });
  }

  finishFreePlay(): Promise<ParticipantView> {
    return sendJSON<ParticipantView>('POST', `${this.base}finish-free-play/`, undefined, { headers: this.headers });
  }

  rate(body: { score: number; position: number; idempotency_key: string }): Promise<RateResponse> {
    return sendJSON<RateResponse>('POST', `${this.base}rate/`, body, { headers: this.headers });
  }

  postQuestions(answers: Record<string, unknown>): Promise<ParticipantView> {
    return sendJSON<ParticipantView>('POST', `${this.base}post-questions/`, { answers }, { headers: this.headers });
  }
}
