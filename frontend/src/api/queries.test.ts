import { describe, expect, it } from 'vitest';

import { apiKey } from './queries';
import { sessionPath, sessionsPath, studiesPath, studyPath } from './studies';

describe('apiKey', () => {
  it('keys a path by its segments, then its query parameters', () => {
    expect(apiKey(studiesPath())).toEqual(['studies']);
    expect(apiKey(studyPath(3))).toEqual(['studies', '3']);
    expect(apiKey(sessionsPath(1))).toEqual(['sessions', { study: '1' }]);
    expect(apiKey(sessionPath(7))).toEqual(['sessions', '7']);
  });

  it('puts every sessions query under the key of the sessions collection', () => {
    const family = apiKey(sessionsPath());
    for (const path of [sessionsPath(1), sessionPath(7)]) {
      expect(apiKey(path).slice(0, family.length)).toEqual(family);
    }
  });
});
