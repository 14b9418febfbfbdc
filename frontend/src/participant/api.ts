/**
 * The participant's API: `/api/v1/participant/sessions/<id>/…` with the session's token in
 * `X-Participant-Token`. No cookies, no account, nothing that names the scenario.
 */
import { getJSON, sendJSON } from '../api/client';
import type { components } from '../api/schema';
import type { Complete, Question, Refine } from '../api/types';
import type { ItemValues } from './items';

export type Step = components['schemas']['StepEnum'];

/** A study question, as the participant's view lists them (the schema has them as loose dicts). */
export type StudyQuestion = Question;

/**
 * `GET /api/v1/participant/sessions/<id>/`, with the rating items (in the rating step) and the
 * training phase of issue 15 (`phase`, `phase_position`, `phase_count`; `position` and
 * `scenario_count` stay the raw slot number and count, training slots included).
 */
export type ParticipantView = Refine<
  Complete<components['schemas']['ParticipantView']>,
  {
    /** The built-in questions the participant still has to answer. */
    needs: { consent?: boolean; age?: boolean; skill?: boolean };
    questions: StudyQuestion[];
  }
>;

/** `POST …/rate/` body: the values by item key and the client-measured response time. */
export interface RateRequest {
  values: ItemValues;
  response_ms: number | null;
  position: number;
  idempotency_key: string;
}

export interface RateResponse {
  created: boolean;
  position: number;
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

  rate(body: RateRequest): Promise<RateResponse> {
    return sendJSON<RateResponse>('POST', `${this.base}rate/`, body, { headers: this.headers });
  }

  postQuestions(answers: Record<string, unknown>): Promise<ParticipantView> {
    return sendJSON<ParticipantView>('POST', `${this.base}post-questions/`, { answers }, { headers: this.headers });
  }
}
