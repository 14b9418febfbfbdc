import { render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';

import type { StudyDetail } from '../../api';
import { mockFetch } from '../../test/fetchMock';
import { exampleStudy } from '../../test/fixtures';
import { withQueries } from '../../test/queries';
import { FACTOR_CATALOG } from './factorCatalog.fixture';
import { ScenariosEditor } from './ScenariosEditor';

afterEach(() => {
  vi.unstubAllGlobals();
});

const neutral = { delay_ms: 0, jitter_ms: 0, loss_pct: 0 };
const withBurst: StudyDetail = {
  ...exampleStudy,
  session_minutes: 12.4,
  scenarios: [
    ...exampleStudy.scenarios,
    {
      id: 24,
      code: 'GE1',
      label: 'Bursty loss',
      position: 3,
      is_baseline: false,
      upstream: { ...neutral, jitter_ms: 10 },
      downstream: { ...neutral, jitter_ms: 10, gilbert_elliott: { p_pct: 5, r_pct: 50, loss_bad_pct: 100, loss_good_pct: 0 } },
    },
  ],
} as StudyDetail;

describe('ScenariosEditor', { timeout: 20_000 }, () => {
  it('lists every scenario with what it sets, and the size of the current design', async () => {
    mockFetch({ '/api/v1/factors/': { body: FACTOR_CATALOG } });
    render(withQueries(<ScenariosEditor study={withBurst} onChanged={vi.fn()} />));
    expect(screen.getByTestId('current-design-size')).toHaveTextContent('4 scenarios; one session takes about 12 min.');
    const table = await screen.findByRole('table', { name: 'Scenarios' });
    const row = within(table).getByRole('row', { name: /GE1/ });
    expect(row).toHaveTextContent('Jitter 10 ms, Burst loss: p (good→bad) 5 %');
    expect(within(row).getByRole('button', { name: 'Edit GE1' })).toBeInTheDocument();
    expect(within(row).getByRole('button', { name: 'Remove GE1' })).toBeInTheDocument();
    expect(within(table).queryByRole('button', { name: 'Remove B' })).toBeNull();
    expect(screen.getByRole('form', { name: 'New scenario' })).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Design generator' })).toBeInTheDocument();
  });

  it('says so when the factor registry cannot be loaded', async () => {
    mockFetch({ '/api/v1/factors/': { status: 503, statusText: 'Service Unavailable', body: { detail: 'down' } } });
    render(withQueries(<ScenariosEditor study={withBurst} onChanged={vi.fn()} />));
    expect(await screen.findByText(/Could not load the factor registry/)).toBeInTheDocument();
  });
});
