import '@testing-library/jest-dom/vitest';

import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';

// find*/waitFor give up after this long. Testing Library's default (1 s) is a speed target in
// disguise: on a loaded CI machine the first render of a page with queries took longer, and
// "Loading stations…" was still showing. This is a bound against a hang, not a timing check.
configure({ asyncUtilTimeout: 15_000 });

// Vitest globals are off, so Testing Library cannot register its own cleanup.
afterEach(() => {
  cleanup();
});
