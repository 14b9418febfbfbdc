import { useEffect, useId, useRef, useState } from 'react';
import type { SyntheticEvent, ReactNode } from 'react';

import type { Lang } from '../shared/participantLink';
import { formatClock } from '../shared/time';
import { useCountdown } from '../shared/useCountdown';
import type { ParticipantApi, ParticipantView, StudyQuestion } from './api';
import { optionalMessage, scaleLabel } from './i18n';
import type { Translate } from './i18n';
import type { PendingRating } from './pending';
import { useStoredState } from './storage';

export interface ScreenProps {
  view: ParticipantView;
  receivedAt: number;
  t: Translate;
  lang: Lang;
  pending: PendingRating[];
  sending: boolean;
  offline: boolean;
  onRate: (position: number, score: number) => void;
  act: (call: (api: ParticipantApi) => Promise<ParticipantView>) => Promise<boolean>;
}

/** One screen per step of the session, chosen by the server's state. */
export function Screen(props: ScreenProps) {
  const { view, t } = props;
  switch (view.step) {
    case 'waiting':
      return <Message title={t('waitingTitle')} text={t('waitingText')} stepKey="waiting" />;
    case 'questionnaire':
      return <Questionnaire {...props} />;
    case 'free_play':
      return <FreePlay {...props} />;
    case 'preparing':
      return (
        <Message title={t('preparingTitle')} text={t('preparingText')} stepKey={`preparing-${view.position ?? 0}`}>
          <Round view={view} t={t} />
        </Message>
      );
    case 'playing':
      return <Playing key={`playing-${view.position ?? 0}`} {...props} />;
    case 'rating':
      return <Rating key={`rating-${view.position ?? 0}`} {...props} />;
    case 'post_questions':
      return <PostQuestions {...props} />;
    case 'thanks':
      return <Message title={t('thanksTitle')} text={t('thanksText')} stepKey="thanks" />;
    case 'paused':
      return <Message title={t('pausedTitle')} text={t('pausedText')} stepKey="paused" />;
    case 'ended':
      return <Message title={t('endedTitle')} text={t('endedText')} stepKey="ended" />;
  }
}

/** The screen's heading; it takes the focus when the step changes (screen readers follow). */
function Heading({ children, stepKey }: { children: ReactNode; stepKey: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    ref.current?.focus();
  }, [stepKey]);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children}
    </h1>
  );
}

function Message({ title, text, stepKey, children }: { title: string; text: string; stepKey: string; children?: ReactNode }) {
  return (
    <main className="p-main p-main--center">
      <Heading stepKey={stepKey}>{title}</Heading>
      {children}
      <p className="p-lead">{text}</p>
    </main>
  );
}

function Round({ view, t }: { view: ParticipantView; t: Translate }) {
  if (view.position === null) return null;
  return (
    <p className="p-round">
      {t('roundOf', { n: view.position, total: view.scenario_count })}
    </p>
  );
}

function Countdown({ seconds, t }: { seconds: number | null; t: Translate }) {
  if (seconds === null) return null;
  return (
    <p className="p-countdown">
      <span className="p-countdown__label">{t('timeLeft')}</span>
      {/* Read out on demand only: a live region ticking every second would drown everything else. */}
      <span className="p-countdown__value" data-testid="countdown">
        {formatClock(seconds)}
      </span>
    </p>
  );
}

// --- questionnaire (consent first) --------------------------------------------------------

type Answers = Record<string, string>;

function Questionnaire({ view, t, lang, act }: ScreenProps) {
  const needsConsent = view.needs.consent === true;
  const [consented, setConsented] = useStoredState<boolean>(`qoelab:consent:${view.session}`, false);
  if (needsConsent && !consented) {
    return (
      <Consent
        game={view.game}
        t={t}
        onConsent={() => {
          setConsented(true);
        }}
      />
    );
  }
  return <PreQuestions view={view} t={t} lang={lang} act={act} consent={needsConsent} />;
}

function Consent({ game, t, onConsent }: { game: string; t: Translate; onConsent: () => void }) {
  const [checked, setChecked] = useState(false);
  const [error, setError] = useState(false);
  const errorId = useId();
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    if (!checked) {
      setError(true);
      return;
    }
    onConsent();
  };
  return (
    <main className="p-main">
      <Heading stepKey="consent">{t('consentTitle')}</Heading>
      <p className="p-lead">{t('consentIntro', { game })}</p>
      <p>{t('consentData')}</p>
      <form onSubmit={submit} noValidate>
        <label className="p-check">
          <input
            type="checkbox"
            checked={checked}
            aria-invalid={error && !checked}
            aria-describedby={error && !checked ? errorId : undefined}
            onChange={(event) => {
              setChecked(event.target.checked);
            }}
          />
          <span>{t('consentCheck')}</span>
        </label>
        {error && !checked && (
          <p id={errorId} className="p-error" role="alert">
            {t('consentMissing')}
          </p>
        )}
        <button type="submit" className="p-button p-button--primary">
          {t('continue')}
        </button>
      </form>
    </main>
  );
}

function PreQuestions({
  view,
  t,
  lang,
  act,
  consent,
}: Pick<ScreenProps, 'view' | 't' | 'lang' | 'act'> & { consent: boolean }) {
  const builtIn: StudyQuestion[] = [];
  if (view.needs.age) builtIn.push({ key: 'age', phase: 'pre', kind: 'integer', text: t('age'), min: 10, max: 120, required: true });
  if (view.needs.skill) {
    builtIn.push({ key: 'skill', phase: 'pre', kind: 'choice', text: t('skill'), choices: ['low', 'medium', 'high'], required: true });
  }
  builtIn.push({ key: 'genre_preference', phase: 'pre', kind: 'boolean', text: t('genre', { game: view.game }), required: true });
  const studyQuestions = view.questions.filter((q) => q.phase === 'pre');

  const request = (answers: Answers): Call => {
    const body: Record<string, unknown> = {
      genre_preference: answers.genre_preference === 'true',
      answers: convert(studyQuestions, answers),
    };
    if (consent) body.consent = true;
    if (view.needs.age) body.age = Number(answers.age);
    if (view.needs.skill) body.skill = answers.skill;
    return (api) => api.questionnaire(body);
  };

  return (
    <QuestionsForm
      draftKey={`qoelab:draft:${view.session}:pre`}
      stepKey="questionnaire"
      title={t('questionnaireTitle')}
      submitLabel={t('continue')}
      questions={[...builtIn, ...studyQuestions]}
      t={t}
      lang={lang}
      act={act}
      request={request}
      choiceLabel={(q) => (q.key === 'skill' ? (c) => t(`skill_${c}` as 'skill_low') : undefined)}
    />
  );
}

type Call = Parameters<ScreenProps['act']>[0];

/** A busy flag around `act`; a failure is shown by the session's error banner. */
function useSend(act: ScreenProps['act']): [boolean, (call: Call) => Promise<void>] {
  const [busy, setBusy] = useState(false);
  const send = async (call: Call) => {
    setBusy(true);
    try {
      await act(call);
    } catch {
      /* shown by the session's error banner */
    } finally {
      setBusy(false);
    }
  };
  return [busy, send];
}

/** Questions on one form: a stored draft, checked here, then sent as `request(answers)`. */
function QuestionsForm({
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

function convert(questions: StudyQuestion[], answers: Answers): Record<string, unknown> {
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

// --- free play and playing ----------------------------------------------------------------

function FreePlay({ view, receivedAt, t, act }: ScreenProps) {
  const remaining = useCountdown(view.seconds_remaining, receivedAt);
  const [busy, send] = useSend(act);
  const start = () => send((api) => api.finishFreePlay());
  return (
    <main className="p-main p-main--center">
      <Heading stepKey="free_play">{t('freePlayTitle')}</Heading>
      <p className="p-lead">{t('freePlayText')}</p>
      {!view.can_continue && <Countdown seconds={remaining} t={t} />}
      {view.can_continue && (
        <>
          <p role="status">{t('freePlayDone')}</p>
          <button type="button" className="p-button p-button--primary p-button--large" disabled={busy} onClick={() => void start()}>
            {t('startRounds')}
          </button>
        </>
      )}
    </main>
  );
}

function Playing({ view, receivedAt, t }: ScreenProps) {
  const remaining = useCountdown(view.seconds_remaining, receivedAt);
  return (
    <main className="p-main p-main--center">
      <Heading stepKey={`playing-${view.position ?? 0}`}>{t('playTitle')}</Heading>
      <Round view={view} t={t} />
      <p className="p-lead">{t('playText')}</p>
      <Countdown seconds={remaining} t={t} />
    </main>
  );
}

// --- the rating form ----------------------------------------------------------------------

function Rating({ view, t, lang, pending, sending, offline, onRate }: ScreenProps) {
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

// --- after the last rating ----------------------------------------------------------------

function PostQuestions({ view, t, lang, act }: ScreenProps) {
  const questions = view.questions.filter((q) => q.phase === 'post');
  return (
    <QuestionsForm
      draftKey={`qoelab:draft:${view.session}:post`}
      stepKey="post_questions"
      title={t('postTitle')}
      submitLabel={t('finish')}
      questions={questions}
      t={t}
      lang={lang}
      act={act}
      request={(answers) => (api) => api.postQuestions(convert(questions, answers))}
    />
  );
}
