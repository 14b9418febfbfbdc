import { describe, expect, it } from 'vitest';

import { CATALOGUE, chooseLanguage, optionalMessage, scaleLabel, translator } from './i18n';

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('the participant catalogue', () => {
  it('translates every English key into German with the same placeholders', () => {
    const en = CATALOGUE.en;
    const de = CATALOGUE.de;
    expect(Object.keys(de).sort()).toEqual(Object.keys(en).sort());
    for (const key of Object.keys(en) as (keyof typeof en)[]) {
      expect(de[key].trim(), key).not.toBe('');
      expect(placeholders(de[key]), key).toEqual(placeholders(en[key]));
    }
  });

  it('writes German with proper umlauts and ß, not ae/oe/ue stand-ins', () => {
    const all = Object.values(CATALOGUE.de).join(' ');
    expect(all).toMatch(/[äöüß]/);
    expect(all).not.toMatch(/\b(fuer|ueber|koennen|moechten|Spielerlebniss)\b/);
    expect(CATALOGUE.de.scale_2).toBe('dürftig');
  });

  it('fills placeholders', () => {
    expect(translator('de')('roundOf', { n: 3, total: 10 })).toBe('Runde 3 von 10');
    expect(translator('en')('genre', { game: 'Gran Turismo' })).toBe('Do you like playing games like Gran Turismo?');
  });
});

describe('scaleLabel', () => {
  const acr = ['bad', 'poor', 'fair', 'good', 'excellent'];
  it('translates the standard ACR labels', () => {
    expect(scaleLabel('de', acr, 1)).toBe('schlecht');
    expect(scaleLabel('de', acr, 5)).toBe('ausgezeichnet');
    expect(scaleLabel('en', acr, 3)).toBe('fair');
  });
  it("keeps a study's own labels as configured", () => {
    expect(scaleLabel('de', ['low', 'mid', 'high'], 2)).toBe('mid');
  });
});

describe('language choice', () => {
  it("prefers the participant's own switch, then the link, then the study, then the browser", () => {
    const choose = (stored: string | null, link: 'en' | 'de' | null, study: 'en' | 'de' | null, browser: string) =>
      chooseLanguage({ stored, link, study, browser });
    expect(choose('en', 'de', 'de', 'de-DE')).toBe('en');
    expect(choose(null, 'de', 'en', 'en-US')).toBe('de');
    expect(choose(null, 'en', 'de', 'de-DE')).toBe('en');
    expect(choose(null, null, 'de', 'en-GB')).toBe('de');
    expect(choose(null, null, 'en', 'de-AT')).toBe('en');
    // Before the first view (or on an invalid link) the browser decides.
    expect(choose(null, null, null, 'de-AT')).toBe('de');
    expect(choose(null, null, null, 'fr-FR')).toBe('en');
    expect(choose('fr', null, null, 'fr-FR')).toBe('en'); // a stored value that is no language
  });
  it('knows the default study questions by key', () => {
    expect(optionalMessage('de', 'q_attitude')).toContain('Cloud Gaming');
    expect(optionalMessage('de', 'choice_positive')).toBe('positiv');
    expect(optionalMessage('de', 'q_custom_question')).toBeNull();
  });
});
