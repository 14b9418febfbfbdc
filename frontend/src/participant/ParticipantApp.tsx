import { useCallback, useEffect, useMemo, useRef, useState } from 'react';

import { ApiError } from '../api/client';
import type { Lang, ParsedLink } from '../shared/participantLink';
import { ParticipantApi } from './api';
import type { ParticipantView } from './api';
import { chooseLanguage, isLang, translator } from './i18n';
import type { Translate } from './i18n';
import type { ItemValues } from './items';
import { clearDraft, clearDraftsBefore, clearPending, loadPending, savePending } from './pending';
import type { PendingRating } from './pending';
import { Screen } from './screens';
import { Message } from './steps/common';

const DEFAULT_POLL_MS = 1000;
const RETRY_MS = 3000;

function storedToken(link: ParsedLink): string | null {
  const key = `qoelab:token:${link.sessionId}`;
  try {
    if (link.token) {
      localStorage.setItem(key, link.token);
      return link.token;
    }
    return localStorage.getItem(key);
  } catch {
    return link.token;
  }
}

function storedLang(sessionId: number): string | null {
  try {
    return localStorage.getItem(`qoelab:lang:${sessionId}`);
  } catch {
    return null;
  }
}

/** The participant's screens for one session, driven by the server's state. */
export function ParticipantApp({ link }: { link: ParsedLink | null }) {
  const [stored, setStored] = useState<string | null>(() => (link ? storedLang(link.sessionId) : null));
  const [studyLang, setStudyLang] = useState<Lang | null>(null);
  const lang = chooseLanguage({ stored, link: link?.lang ?? null, study: studyLang, browser: navigator.language });
  const t = useMemo(() => translator(lang), [lang]);
  useEffect(() => {
    document.documentElement.lang = lang;
    document.title = t('documentTitle');
  }, [lang, t]);
  const switchLanguage = () => {
    const next: Lang = lang === 'en' ? 'de' : 'en';
    setStored(next);
    try {
      if (link) localStorage.setItem(`qoelab:lang:${link.sessionId}`, next);
    } catch {
      /* storage disabled: the choice lasts for this page only */
    }
  };
  const token = useMemo(() => (link ? storedToken(link) : null), [link]);
  const api = useMemo(() => (link && token ? new ParticipantApi(link.sessionId, token) : null), [link, token]);

  return (
    <div className="p-app">
      <header className="p-header">
        <span className="p-header__title">{t('documentTitle')}</span>
        <button type="button" className="p-lang" lang={lang === 'en' ? 'de' : 'en'} onClick={switchLanguage} aria-label={t('switchLanguageLabel')}>
          {t('switchLanguage')}
        </button>
      </header>
      {api ? (
        <Session api={api} t={t} lang={lang} onStudyLanguage={setStudyLang} />
      ) : (
        <main className="p-main">
          <h1>{t('invalidLink')}</h1>
        </main>
      )}
    </div>
  );
}

function Session({
  api,
  t,
  lang,
  onStudyLanguage,
}: {
  api: ParticipantApi;
  t: Translate;
  lang: Lang;
  /** Every view names the study's language (the screens start in it). */
  onStudyLanguage: (lang: Lang) => void;
}) {
  const sessionId = api.sessionId;
  const [view, setView] = useState<ParticipantView | null>(null);
  const [receivedAt, setReceivedAt] = useState(0);
  const [offline, setOffline] = useState(false);
  const [invalid, setInvalid] = useState(false);
  /** The server answered 410 `token_expired`: the session ended longer ago than links last. */
  const [expired, setExpired] = useState(false);
  const [pending, setPending] = useState<PendingRating[]>(() => loadPending(sessionId));
  const [sending, setSending] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const revision = useRef(0);

  /** Show a view unless a newer one is already shown (a slow poll must not undo a step). */
  const show = useCallback((next: ParticipantView) => {
    if (next.revision < revision.current) return;
    revision.current = next.revision;
    if (isLang(next.language)) onStudyLanguage(next.language);
    // Drafts of slots the session is past (e.g. rated by the researcher) are of no use any more.
    if (next.step === 'thanks' || next.step === 'ended') clearDraftsBefore(next.session, Infinity);
    else if (next.position !== null) clearDraftsBefore(next.session, next.position);
    setView(next);
    setReceivedAt(Date.now());
    setOffline(false);
  }, [onStudyLanguage]);

  const handleError = useCallback((error: unknown) => {
    if (error instanceof ApiError && error.status === 410) setExpired(true);
    else if (error instanceof ApiError && (error.status === 401 || error.status === 403 || error.status === 404)) setInvalid(true);
    else if (error instanceof ApiError && error.status === null) setOffline(true);
    else if (error instanceof ApiError) setProblem(error.detail ?? error.message);
  }, []);

  // Poll the session's state at the interval the server asks for.
  const interval = view?.poll_interval_ms ?? DEFAULT_POLL_MS;
  useEffect(() => {
    if (expired) return; // the link will not work again: stop asking
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = () => {
      api
        .view(controller.signal)
        .then(show, (error: unknown) => {
          if (!controller.signal.aborted) handleError(error);
        })
        .finally(() => {
          if (!controller.signal.aborted) timer = setTimeout(load, interval);
        });
    };
    load();
    return () => {
      controller.abort();
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [api, interval, show, handleError, expired]);

  // Send kept ratings: now, when the browser comes back online, and every few seconds.
  const flushing = useRef(false);
  /** The server has the rating (or no longer waits for it): drop the queued copy and the draft. */
  const forget = useCallback(
    (position: number) => {
      clearPending(sessionId, position);
      clearDraft(sessionId, position);
    },
    [sessionId],
  );
  const flush = useCallback(async () => {
    if (flushing.current) return;
    flushing.current = true;
    setSending(true);
    try {
      for (const item of loadPending(sessionId)) {
        try {
          const response = await api.rate({
            values: item.values,
            response_ms: item.response_ms,
            position: item.position,
            idempotency_key: item.idempotency_key,
          });
          forget(item.position);
          show(response.session);
        } catch (error) {
          if (!(error instanceof ApiError) || error.status === null || error.status >= 500) {
            setOffline(true);
            break;
          }
          if (error.status === 410) {
            // The link expired: no rating of this session can be stored any more.
            for (const kept of loadPending(sessionId)) forget(kept.position);
            setExpired(true);
            break;
          }
          if (error.status === 409) {
            // Keep it only while the session still waits for this very rating (e.g. paused).
            const current = await api.view().catch(() => null);
            const waiting = current === null || current.step === 'paused' || (current.step === 'rating' && current.position === item.position);
            if (!waiting) forget(item.position);
            if (current) show(current);
            if (waiting && current?.step === 'rating') setProblem(error.detail ?? error.message);
          } else {
            // Refused (e.g. a value the study no longer accepts): the draft stays so it can be corrected.
            clearPending(sessionId, item.position);
            setProblem(error.detail ?? error.message);
          }
        }
      }
    } finally {
      flushing.current = false;
      setSending(false);
      setPending(loadPending(sessionId));
    }
  }, [api, sessionId, show, forget]);

  useEffect(() => {
    if (pending.length === 0 || expired) return;
    const retry = () => {
      void flush();
    };
    window.addEventListener('online', retry);
    const timer = setInterval(retry, RETRY_MS);
    return () => {
      window.removeEventListener('online', retry);
      clearInterval(timer);
    };
  }, [pending.length, flush, expired]);

  useEffect(() => {
    if (loadPending(sessionId).length > 0) void flush();
  }, [sessionId, flush]);

  const rate = (position: number, values: ItemValues, responseMs: number) => {
    setProblem(null);
    savePending(sessionId, position, values, responseMs);
    setPending(loadPending(sessionId));
    void flush();
  };

  const act = async (call: (api: ParticipantApi) => Promise<ParticipantView>): Promise<boolean> => {
    setProblem(null);
    try {
      show(await call(api));
      return true;
    } catch (error) {
      handleError(error);
      throw error;
    }
  };

  if (expired) return <Message title={t('expiredTitle')} text={t('expiredText')} stepKey="expired" />;
  if (invalid) {
    return (
      <main className="p-main">
        <h1>{t('invalidLink')}</h1>
      </main>
    );
  }
  return (
    <>
      {offline && (
        <p className="p-banner p-banner--offline" role="status">
          {t('offline')}
        </p>
      )}
      {problem && (
        <p className="p-banner p-banner--error" role="alert">
          {t('errorGeneric', { detail: problem })}
        </p>
      )}
      {view ? (
        <Screen view={view} receivedAt={receivedAt} t={t} lang={lang} pending={pending} sending={sending} offline={offline} onRate={rate} act={act} />
      ) : (
        <main className="p-main">
          <h1 aria-live="polite">{t('loading')}</h1>
        </main>
      )}
    </>
  );
}
