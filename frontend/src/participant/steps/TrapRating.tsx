/**
 * The trapping screen (ITU-T P.808 quality control): an instructed-response item in the
 * place of a clip — the rating form, with the same look and keys, asking the study's first
 * item with the researcher's instruction ("Please select 'Poor' for this question.") as its
 * question. It follows the scenario just rated without a new play; the answer is stored
 * as a rating of kind "trap" and never enters a MOS.
 */
import type { ParticipantView } from '../api';
import type { ScreenProps } from './common';
import { Rating } from './Rating';

/** The view the rating form shows for a trap: only the first item, the instruction as its question. */
export function trapView(view: ParticipantView): ParticipantView {
  const trap = view.trap;
  if (!trap) return view;
  const items = view.items.slice(0, 1).map((item) => ({
    ...item,
    question: { en: trap.en ?? item.question.en, de: trap.de ?? item.question.de },
  }));
  return { ...view, items };
}

export function TrapRating(props: ScreenProps) {
  return <Rating {...props} view={trapView(props.view)} />;
}
