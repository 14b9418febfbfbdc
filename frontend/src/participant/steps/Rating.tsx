/**
 * The rating screen: every rating item of the study on one screen, in the study's order.
 * No default value; a required item without a value blocks the submission (named in the
 * message). Values and the first-shown time survive a reload; `response_ms` is submit time
 * minus the time this slot's rating screen was first shown.
 */
import { useEffect, useId, useRef, useState } from 'react';

import { CATALOGUE } from '../i18n';
import { legacyItems, missingItems, submittableValues } from '../items';
import { Heading, Round } from './common';
import type { ScreenProps } from './common';
import { ItemField, focusItem, pointForKey } from './scales/ItemField';
import { useRatingDraft } from './useRatingDraft';

export function Rating({ view, t, lang, pending, sending, offline, onRate }: ScreenProps) {
  const position = view.position ?? 0;
  const items = view.items.length > 0 ? view.items : legacyItems(view.scale, { en: CATALOGUE.en.ratingQuestion, de: CATALOGUE.de.ratingQuestion });
  const kept = pending.find((p) => p.position === position);
  const submitted = kept !== undefined;
  const { draft, setValue } = useRatingDraft(view.session, position);
  const values = kept?.values ?? draft.values;
  const [refused, setRefused] = useState(false);
  const missing = refused ? missingItems(items, values) : [];
  const base = useId();
  const nameOf = (key: string) => `${base}-${key}`;

  const submit = () => {
    if (submitted) return;
    const blocking = missingItems(items, values);
    const first = blocking[0];
    if (first) {
      setRefused(true);
      focusItem(nameOf(first.key), first, values[first.key]);
      return;
    }
    onRate(position, submittableValues(items, values), Math.max(0, Date.now() - draft.shown_at));
  };
  const change = (key: string, value: number) => {
    if (!submitted) setValue(key, value);
  };

  // Enter submits from anywhere but a button; a number key outside every item chooses on the first one.
  const latest = useRef({ submit, change, items });
  useEffect(() => {
    latest.current = { submit, change, items };
  });
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.altKey || event.ctrlKey || event.metaKey || event.defaultPrevented) return;
      const target = event.target instanceof HTMLElement ? event.target : null;
      if (target && (target.tagName === 'TEXTAREA' || (target.tagName === 'INPUT' && (target as HTMLInputElement).type !== 'radio'))) return;
      if (event.key === 'Enter' && target?.tagName !== 'BUTTON') {
        event.preventDefault();
        latest.current.submit();
        return;
      }
      const first = latest.current.items[0];
      const point = first && !target?.closest('[data-item]') ? pointForKey(first, event.key) : null;
      if (first && point !== null) {
        event.preventDefault();
        latest.current.change(first.key, point);
        focusItem(nameOf(first.key), first, point);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('keydown', onKey);
    };
    // nameOf only depends on `base`, stable for the component's life.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [base]);

  return (
    <main className="p-main">
      <Heading stepKey={`rating-${position}`}>{t('ratingTitle')}</Heading>
      <Round view={view} t={t} />
      <p className="p-hint">{t(items.length > 1 ? 'ratingHintItems' : 'ratingHintOne')}</p>
      <form
        className="p-rating"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        <fieldset className="p-rating__items" disabled={submitted}>
          {items.map((item, index) => (
            <ItemField
              key={item.key}
              item={item}
              name={nameOf(item.key)}
              index={items.length > 1 ? index : null}
              value={values[item.key]}
              missing={missing.includes(item)}
              lang={lang}
              t={t}
              onChange={(value) => {
                change(item.key, value);
              }}
            />
          ))}
        </fieldset>
        {missing.length > 0 && (
          <p className="p-error" role="alert">
            {t(items.length > 1 ? 'itemsMissing' : 'ratingMissing', { items: missing.map((item) => t('quoted', { text: item.question[lang] })).join(', ') })}
          </p>
        )}
        {submitted ? (
          <p className="p-saved" role="status">
            {offline ? t('savedOffline') : sending ? t('sending') : t('sending')}
          </p>
        ) : (
          <button type="submit" className="p-button p-button--primary p-button--large">
            {t('ratingSubmit')}
          </button>
        )}
      </form>
    </main>
  );
}
