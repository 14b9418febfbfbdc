/** A form of study questions: a stored draft, validated here, then sent in one request. */
import { useId, useState } from 'react';
import type { SyntheticEvent } from 'react';

import type { Lang } from '../../shared/participantLink';
import type { StudyQuestion } from '../api';
import { optionalMessage } from '../i18n';
import type { Translate } from '../i18n';
import { useStoredState } from '../storage';
import { Heading, useSend } from './common';
import type { Call, ScreenProps } from './common';

export type Answers = Record<string, string>;

/** Questions on one form: a stored draft, checked here, then sent as `request(answers)`. */
export function QuestionsForm({
  draftKey,
  stepKey,
  title,
  submitLabel,
  questions,
  t,
  lang,
  act,
  request,
  choiceLabel,
}: Pick<ScreenProps, 't' | 'lang' | 'act'> & {
  draftKey: string;
  stepKey: string;
  title: string;
  submitLabel: string;
  questions: StudyQuestion[];
  request: (answers: Answers) => Call;
  choiceLabel?: (question: StudyQuestion) => ((choice: string) => string) | undefined;
}) {
  const [answers, setAnswers] = useStoredState<Answers>(draftKey, {});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, send] = useSend(act);
  const submit = async (event: SyntheticEvent) => {
    event.preventDefault();
    const problems = validate(questions, answers, t);
    setErrors(problems);
    if (Object.keys(problems).length > 0) {
      focusFirstError();
      return;
    }
    await send(request(answers));
  };

  return (
    <main className="p-main">
      <Heading stepKey={stepKey}>{title}</Heading>
      <form onSubmit={(event) => void submit(event)} noValidate>
        {questions.map((q) => (
          <QuestionField
            key={q.key}
            question={q}
            label={questionText(q, lang, t)}
            value={answers[q.key] ?? ''}
            error={errors[q.key]}
            t={t}
            lang={lang}
            onChange={(value) => {
              setAnswers({ ...answers, [q.key]: value });
            }}
            choiceLabel={choiceLabel?.(q)}
          />
        ))}
        <button type="submit" className="p-button p-button--primary" disabled={busy}>
          {submitLabel}
        </button>
      </form>
    </main>
  );
}

function focusFirstError() {
  requestAnimationFrame(() => {
    document.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  });
}

function questionText(q: StudyQuestion, lang: Lang, t: Translate): string {
  const text = optionalMessage(lang, `q_${q.key}`) ?? q.text;
  return q.required ? text : `${text} ${t('optional')}`;
}

function validate(questions: StudyQuestion[], answers: Answers, t: Translate): Record<string, string> {
  const out: Record<string, string> = {};
  for (const q of questions) {
    const value = (answers[q.key] ?? '').trim();
    if (value === '') {
      if (q.required) out[q.key] = t('required');
      continue;
    }
    if (q.kind === 'integer') {
      const n = Number(value);
      const low = q.min ?? -Infinity;
      const high = q.max ?? Infinity;
      if (!Number.isInteger(n) || n < low || n > high) out[q.key] = q.key === 'age' ? t('ageInvalid') : t('required');
    }
  }
  return out;
}

export function convert(questions: StudyQuestion[], answers: Answers): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const q of questions) {
    const value = (answers[q.key] ?? '').trim();
    if (value === '') continue;
    out[q.key] = q.kind === 'integer' ? Number(value) : q.kind === 'boolean' ? value === 'true' : value;
  }
  return out;
}

function QuestionField({
  question,
  label,
  value,
  error,
  t,
  lang,
  onChange,
  choiceLabel,
}: {
  question: StudyQuestion;
  label: string;
  value: string;
  error: string | undefined;
  t: Translate;
  lang: Lang;
  onChange: (value: string) => void;
  choiceLabel?: ((choice: string) => string) | undefined;
}) {
  const id = useId();
  const errorId = `${id}-error`;
  const errorNode = error ? (
    <p id={errorId} className="p-error">
      {error}
    </p>
  ) : null;
  if (question.kind === 'choice' || question.kind === 'boolean') {
    const options =
      question.kind === 'boolean'
        ? [
            { value: 'true', label: t('yes') },
            { value: 'false', label: t('no') },
          ]
        : (question.choices ?? []).map((c) => ({
            value: c,
            label: choiceLabel ? choiceLabel(c) : (optionalMessage(lang, `choice_${c}`) ?? c),
          }));
    return (
      <fieldset className="p-field" aria-describedby={error ? errorId : undefined}>
        <legend>{label}</legend>
        <div className="p-choices">
          {options.map((option, index) => (
            <label key={option.value} className="p-choice">
              <input
                type="radio"
                name={`${id}-${question.key}`}
                value={option.value}
                checked={value === option.value}
                aria-invalid={index === 0 && Boolean(error)}
                onChange={() => {
                  onChange(option.value);
                }}
              />
              <span>{option.label}</span>
            </label>
          ))}
        </div>
        {errorNode}
      </fieldset>
    );
  }
  return (
    <div className="p-field">
      <label htmlFor={id}>{label}</label>
      {question.kind === 'integer' ? (
        <input
          id={id}
          type="number"
          inputMode="numeric"
          min={question.min}
          max={question.max}
          value={value}
          aria-invalid={Boolean(error)}
          aria-describedby={error ? errorId : undefined}
          onChange={(event) => {
            onChange(event.target.value);
          }}
        />
      ) : (
        <textarea
          id={id}
          rows={3}
          value={value}
          maxLength={2000}
          aria-invalid={Boolean(error)}
          aria-describedby={error ? errorId : undefined}
          onChange={(event) => {
            onChange(event.target.value);
          }}
        />
      )}
      {errorNode}
    </div>
  );
}
