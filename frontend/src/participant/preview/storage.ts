/**
 * The participant screens keep consent, questionnaire drafts and rating drafts in
 * localStorage under the session id (pending.ts, storage.ts). Every preview screen carries
 * session 0, which no session has; its keys are removed before each screen is shown, so a
 * screen always starts empty and nothing of a preview outlives it in the browser either.
 */
import { PREVIEW_SESSION } from './previewApi';

const KEY = new RegExp(`^qoelab:[a-z]+:${PREVIEW_SESSION}(?::|$)`);

export function clearPreviewStorage(): void {
  try {
    const keys: string[] = [];
    for (let i = 0; i < localStorage.length; i += 1) {
      const key = localStorage.key(i);
      if (key !== null && KEY.test(key)) keys.push(key);
    }
    for (const key of keys) localStorage.removeItem(key);
  } catch {
    /* storage disabled: nothing was kept */
  }
}
