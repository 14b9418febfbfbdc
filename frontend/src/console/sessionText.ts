import type { SessionState, StudyDetail } from '../api';

export const STATE_LABEL: Record<SessionState, string> = {
  created: 'Not started',
  questionnaire: 'Questionnaire',
  free_play: 'Free play',
  applying: 'Applying scenario',
  playing: 'Playing',
  rating: 'Rating',
  post_questions: 'Final questions',
  completed: 'Completed',
  paused: 'Paused',
  aborted: 'Aborted',
};

/** What the participant's screen shows in each state (for the researcher's console). */
export const PARTICIPANT_SEES: Record<SessionState, string> = {
  created: '“Please wait: the researcher will start the session.”',
  questionnaire: 'Consent and the questionnaire.',
  free_play: 'Free play with a countdown (no impairment).',
  applying: '“Get ready” while the agent applies the scenario.',
  playing: '“Play now” with a countdown — no hint of the impairment.',
  rating: 'The rating form.',
  post_questions: 'The end-of-session questions.',
  completed: 'Thank you.',
  paused: '“The session is paused. Please wait for the researcher.”',
  aborted: '“The session has ended.”',
};

type RatingItems = NonNullable<StudyDetail['rating_items']>;

/** One item's scale in a few characters: "1–7", "1–7 slider", "yes/no". */
function scaleText(scale: RatingItems[number]['scale']): string {
  if (scale.kind === 'binary') return 'yes/no';
  return `${scale.min}–${scale.max}${scale.kind === 'continuous' ? ' slider' : ''}`;
}

/**
 * What the participant sees in `state`; the rating form is described from the study's own
 * rating items (issue 35: a fixed "1 bad … 5 excellent" was wrong for a 4-item form with
 * 1–7 sliders), e.g. "The rating form (4 items: overall 1–5, video_quality 1–7 slider, …)."
 */
export function participantSees(state: SessionState, items: RatingItems | undefined): string {
  if (state !== 'rating' || !items || items.length === 0) return PARTICIPANT_SEES[state];
  const count = items.length === 1 ? '1 item' : `${items.length} items`;
  return `The rating form (${count}: ${items.map((i) => `${i.key} ${scaleText(i.scale)}`).join(', ')}).`;
}

export interface AgentProblem {
  headline: string;
  advice: string;
}

/**
 * Turns the session's log into plain words when the station's agent failed. The backend
 * pauses the session and writes a line like "Could not apply scenario 3 of 10 (D2) at
 * station 'Seat 1': …" or "Heartbeat failed during …"; this finds the latest such line.
 *
 * A heartbeat failure while rating is an alarm only while it is current (issue 35): it is
 * the log's last line (the backend adds "The agent answers the heartbeat again." when the
 * agent answers) and it names the scenario being rated now (`position`), so a failure of
 * an earlier rating does not come back at the next one.
 */
export function agentProblem(
  state: SessionState,
  message: string,
  stationName: string | null,
  position: number | null = null,
): AgentProblem | null {
  const lines = message.split('\n').map((l) => l.trim()).filter(Boolean);
  const last = lines.at(-1) ?? '';
  const station = stationName ? `station “${stationName}”` : 'the station';
  if (state === 'paused' && last.includes('runs a dry-run agent; this study is not marked as a rehearsal')) {
    return {
      headline: `The agent at ${station} is a dry-run agent (it applies nothing to the network), so the session is paused.`,
      advice:
        'In production only a study marked as a rehearsal may run on a dry-run agent. Run the session on a station with ' +
        'a real (netlink) agent, or — for a rehearsal — tick “Rehearsal” in the study settings, then press Resume.',
    };
  }
  if (state === 'paused' && /Could not apply|Heartbeat failed|Could not make station|has no station/.test(last)) {
    return {
      headline: `The network emulator at ${station} failed, so the session is paused.`,
      advice:
        'Make sure the netem agent is running and reachable (its log, or its /healthz address), then press Resume: the ' +
        'scenario is applied again, verified and replayed from the start (a station cannot be checked while a session holds ' +
        'it; Resume is the check). The participant sees “paused” and no rating is lost.',
    };
  }
  if (last.includes('Could not clear the impairment')) {
    return {
      headline: `The impairment at ${station} could not be removed.`,
      advice:
        "The agent's lease removes it automatically when it runs out; check the agent (Stations → Check agent) before the next session.",
    };
  }
  if (state === 'rating' && position !== null && last.includes(`Heartbeat failed while rating scenario ${position} of `)) {
    return {
      headline: `The agent at ${station} did not answer the heartbeat while the participant rates.`,
      advice: 'The rating is not affected. If the next scenario cannot be applied the session pauses; check the agent now.',
    };
  }
  return null;
}
