/** The rating screen's values and first-shown time, kept in localStorage (see pending.ts). */
import { useState } from 'react';

import type { RatingDraft } from '../pending';
import { loadDraft, saveDraft } from '../pending';

export function useRatingDraft(session: number, position: number): { draft: RatingDraft; setValue: (key: string, value: number) => void } {
  // Date.now() on the first render of this slot's screen; a reload reads the stored time back.
  const [draft, setDraft] = useState(() => loadDraft(session, position, Date.now()));
  const setValue = (key: string, value: number) => {
    const next = { ...draft, values: { ...draft.values, [key]: value } };
    saveDraft(session, position, next);
    setDraft(next);
  };
  return { draft, setValue };
}
