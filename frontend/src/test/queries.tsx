import { QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';

import { createQueryClient } from '../api/queries';

/** `ui` inside a fresh query cache, as App provides one: for tests that render a page alone. */
export function withQueries(ui: ReactNode) {
  return <QueryClientProvider client={createQueryClient()}>{ui}</QueryClientProvider>;
}
