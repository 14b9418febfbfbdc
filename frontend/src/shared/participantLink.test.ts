import { describe, expect, it } from 'vitest';

import { parseParticipantLink, participantLink } from './participantLink';

describe('the participant link', () => {
  it('carries the session id in the path and the token and language in the fragment', () => {
    const url = participantLink('http://lab:8000', 42, 'tok_-abcdefghijklmnop', 'de');
    expect(url).toBe('http://lab:8000/participant/42#t=tok_-abcdefghijklmnop&lang=de');
    const parsed = new URL(url);
    expect(parseParticipantLink(parsed.pathname, parsed.hash)).toEqual({ sessionId: 42, token: 'tok_-abcdefghijklmnop', lang: 'de' });
  });

  it('also reads the short /p/<id>/<token> form and ignores unknown languages', () => {
    expect(parseParticipantLink('/p/7/abcdefghijklmnopqrst', '#lang=fr')).toEqual({ sessionId: 7, token: 'abcdefghijklmnopqrst', lang: null });
  });

  it('rejects other paths', () => {
    expect(parseParticipantLink('/console', '')).toBeNull();
    expect(parseParticipantLink('/participant/abc', '#t=x')).toBeNull();
  });
});
