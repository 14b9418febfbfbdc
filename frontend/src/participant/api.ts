/**
 * The participant's API: `/api/v1/participant/sessions/<id>/…` with the session's token in
 * `X-Participant-Token`. No cookies, no account, nothing that names the scenario.
 */
import { getJSON, sendJSON } from '../api/client';
import type { components } from '../api/schema';
import type { Complete, Question, Refine } from '../api/types';

export type Step = components['schemas']['StepEnum'];

/** A study question, as the participant's view lists them (the schema has them as loose dicts). */
export type StudyQuestion = Question;

/** `GET /api/v1/participant/sessions/<id>/` */
export type ParticipantView = Refine<
  Complete<components['schemas']['ParticipantView']>,
  {
    /** The built-in questions the participant still has to answer. */
    needs: { consent?: boolean; age?: boolean; skill?: boolean };
    questions: StudyQuestion[];
  }
>;

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
