/**
 * The researcher's preview of a study's participant screens (issue 35, item 3): the same
 * screens as a session, fed by the read-only preview endpoint and stepped through with
 * Back and Next. Every submit of a screen only moves on: no participant, session, rating
 * or answer is created (the banner says so).
 */
import { useEffect, useMemo, useState } from 'react';

import { ApiError } from '../../api/client';
import type { Lang } from '../../shared/participantLink';
import { isLang, translator } from '../i18n';
import { Screen } from '../screens';
import { loadPreview } from './previewApi';
import type { PreviewScreen } from './previewApi';
import { clearPreviewStorage } from './storage';
import { fill, PREVIEW_TEXT } from './text';

export function PreviewApp({ studyId }: { studyId: number }) {
  const [screens, setScreens] = useState<PreviewScreen[] | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [index, setIndex] = useState(0);
  const [shownAt, setShownAt] = useState(() => Date.now());
  const [chosen, setChosen] = useState<Lang | null>(null);
  const studyLang = screens?.[0]?.view.language;
  const lang: Lang = chosen ?? (isLang(studyLang) ? studyLang : 'en');
  const t = useMemo(() => translator(lang), [lang]);
  const text = PREVIEW_TEXT[lang];

  useEffect(() => {
    const controller = new AbortController();
    clearPreviewStorage();
    loadPreview(studyId, controller.signal).then(setScreens, (error: unknown) => {
      if (controller.signal.aborted) return;
      setFailure(error instanceof ApiError ? (error.detail ?? error.message) : String(error));
    });
    return () => {
      controller.abort();
    };
  }, [studyId]);

  useEffect(() => {
    document.documentElement.lang = lang;
    document.title = `${text.banner} · ${t('documentTitle')}`;
  }, [lang, t, text]);

  const go = (next: number) => {
    if (!screens || next < 0 || next >= screens.length) return;
    clearPreviewStorage(); // each screen starts empty, as for a new participant
    setIndex(next);
    setShownAt(Date.now());
  };
  const screen = screens?.[index];

  return (
    <div className="p-app">
      <header className="p-header">
        <span className="p-header__title">{t('documentTitle')}</span>
        <button
          type="button"
          className="p-lang"
          lang={lang === 'en' ? 'de' : 'en'}
          onClick={() => {
            setChosen(lang === 'en' ? 'de' : 'en');
          }}
          aria-label={t('switchLanguageLabel')}
        >
          {t('switchLanguage')}
        </button>
      </header>
      <p className="p-banner p-banner--preview" role="status" data-testid="preview-banner">
        {text.banner}
      </p>
      {failure !== null && (
        <p className="p-banner p-banner--error" role="alert">
          {fill(text.failed, { detail: failure })}
        </p>
      )}
      {screens && screen && (
        <>
          <nav className="p-preview-nav" aria-label={text.banner}>
            <button type="button" className="p-button" disabled={index === 0} onClick={() => { go(index - 1); }}>
              {text.back}
            </button>
            <span className="p-preview-nav__where" data-testid="preview-where" data-step={screen.view.step}>
              {fill(text.screenOf, { n: index + 1, total: screens.length, title: screen.title })}
            </span>
            <button type="button" className="p-button" disabled={index === screens.length - 1} onClick={() => { go(index + 1); }}>
              {text.next}
            </button>
          </nav>
          <Screen
            key={index}
            view={screen.view}
            receivedAt={shownAt}
            t={t}
            lang={lang}
            pending={[]}
            sending={false}
            offline={false}
            onRate={() => {
              go(index + 1);
            }}
            act={() => {
              // The screen's request is never sent: the preview only moves on.
              go(index + 1);
              return Promise.resolve(true);
            }}
          />
        </>
      )}
      {!screens && failure === null && (
        <main className="p-main">
          <h1 aria-live="polite">{t('loading')}</h1>
        </main>
      )}
    </div>
  );
}
