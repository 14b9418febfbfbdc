/**
 * The participant's session link: `/participant/<session id>#t=<token>&lang=<de|en>`.
 *
 * The token is the session's participant token (a capability: whoever holds it can answer
 * for that one session). It travels in the URL fragment, which browsers never send to the
 * server, so it stays out of access logs; the participant app sends it in the
 * `X-Participant-Token` header.
 */
export type Lang = 'en' | 'de';

export function participantLink(origin: string, sessionId: number, token: string, lang: Lang | null): string {
  const params = new URLSearchParams({ t: token });
  if (lang) params.set('lang', lang);
  return `${origin}/participant/${sessionId}#${params.toString()}`;
}

export interface ParsedLink {
  sessionId: number;
  token: string | null;
  lang: Lang | null;
}

/** Reads the session id from the path and the token and language from the fragment. */
export function parseParticipantLink(pathname: string, hash: string): ParsedLink | null {
  const match = /^\/(?:participant|p)\/(\d{1,18})\/?(?:([A-Za-z0-9_-]{16,}))?\/?$/.exec(pathname);
  if (!match?.[1]) return null;
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const lang = params.get('lang');
  return {
    sessionId: Number(match[1]),
    // The token may also be the path's last segment (/participant/12/<token>) for printed links.
    token: params.get('t') ?? match[2] ?? null,
    lang: lang === 'de' || lang === 'en' ? lang : null,
  };
}
