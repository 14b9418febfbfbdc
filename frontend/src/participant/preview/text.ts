/** The preview's own texts (the participant screens' catalogue stays the participant's). */
import type { Lang } from '../../shared/participantLink';

export const PREVIEW_TEXT: Record<Lang, { banner: string; screenOf: string; back: string; next: string; failed: string }> = {
  en: {
    banner: 'Preview — nothing is stored',
    screenOf: 'Screen {n} of {total}: {title}',
    back: 'Back',
    next: 'Next',
    failed: 'The preview could not be loaded: {detail}',
  },
  de: {
    banner: 'Vorschau – nichts wird gespeichert',
    screenOf: 'Bildschirm {n} von {total}: {title}',
    back: 'Zurück',
    next: 'Weiter',
    failed: 'Die Vorschau konnte nicht geladen werden: {detail}',
  },
};

export function fill(text: string, params: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}
