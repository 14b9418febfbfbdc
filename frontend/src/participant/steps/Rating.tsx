/** The rating form: the scale, keys 1–5 and Enter, and ratings kept while offline. */
import { useEffect, useId, useRef, useState } from 'react';

import { scaleLabel } from '../i18n';
import { Heading, Round } from './common';
import type { ScreenProps } from './common';

export function Rating({ view, t, lang, pending, sending, offline, onRate }: ScreenProps) {
  const position = view.position ?? 0;
  const kept = pending.find((p) => p.position === position);
  const [choice, setChoice] = useState<number | null>(null); // no default value
  const [missing, setMissing] = useState(false);
  const scale = view.scale.map((s) => s.score);
  const labels = view.scale.map((s) => s.label);
  const hintId = useId();
  const errorId = useId();
  const name = useId();
  const submitted = kept !== undefined;

  const submit = () => {
    if (submitted) return;
    if (choice === null) {
      setMissing(true);
      return;
    }
    onRate(position, choice);
  };

  // Keys 1–5 choose, Enter confirms — wherever the focus is on the page.
  const submitRef = useRef(submit);
  useEffect(() => {
    submitRef.current = submit;
  });
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.altKey || event.ctrlKey || event.metaKey) return;
      const target = event.target as HTMLElement | null;
      if (target && (target.tagName === 'TEXTAREA' || (target.tagName === 'INPUT' && (target as HTMLInputElement).type !== 'radio'))) return;
      const digit = Number(event.key);
      if (Number.isInteger(digit) && scale.includes(digit)) {
        event.preventDefault();
        setChoice(digit);
        setMissing(false);
        document.getElementById(`${name}-${digit}`)?.focus();
      } else if (event.key === 'Enter' && target?.tagName !== 'BUTTON') {
        event.preventDefault();
        submitRef.current();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('keydown', onKey);
    };
  }, [scale, name]);

  return (
    <main className="p-main">
      <Heading stepKey={`rating-${position}`}>{t('ratingTitle')}</Heading>
      <Round view={view} t={t} />
      <form
        className="p-rating"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        <fieldset aria-describedby={[hintId, missing ? errorId : ''].join(' ').trim()} disabled={submitted}>
          <legend className="p-rating__question">{t('ratingQuestion')}</legend>
          <p id={hintId} className="p-hint">
            {t('ratingHint')}
          </p>
          <div className="p-scale">
            {scale.map((score) => (
              <label key={score} className={`p-scale__option${(kept?.score ?? choice) === score ? ' is-chosen' : ''}`} htmlFor={`${name}-${score}`}>
                <input
                  id={`${name}-${score}`}
                  type="radio"
                  name={name}
                  value={score}
                  checked={(kept?.score ?? choice) === score}
                  aria-label={`${score} – ${scaleLabel(lang, labels, score)}`}
                  required
                  onChange={() => {
                    setChoice(score);
                    setMissing(false);
                  }}
                />
                <span className="p-scale__score" aria-hidden="true">
                  {score}
                </span>
                <span className="p-scale__label" aria-hidden="true">
                  {scaleLabel(lang, labels, score)}
                </span>
              </label>
            ))}
          </div>
        </fieldset>
        {missing && (
          <p id={errorId} className="p-error" role="alert">
            {t('ratingMissing')}
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
