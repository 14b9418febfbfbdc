/** The questionnaires: consent first, then the pre-session questions; the post-session questions last. */
import { useId, useState } from 'react';
import type { SyntheticEvent } from 'react';

import type { StudyQuestion } from '../api';
import type { Translate } from '../i18n';
import { useStoredState } from '../storage';
import { Heading } from './common';
import type { Call, ScreenProps } from './common';
import { convert, QuestionsForm } from './QuestionsForm';
import type { Answers } from './QuestionsForm';

export function Questionnaire({ view, t, lang, act }: ScreenProps) {
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

export function PostQuestions({ view, t, lang, act }: ScreenProps) {
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
