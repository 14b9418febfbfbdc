import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';

import type { Scenario } from '../../api';
import { recordFetch } from '../../test/fetchMock';
import { withQueries } from '../../test/queries';
import { FACTOR_CATALOG } from './factorCatalog.fixture';
import { ScenarioForm } from './ScenarioForm';

function renderForm(scenario: Scenario | null = null) {
  const onDone = vi.fn();
  render(withQueries(<ScenarioForm studyId={3} catalog={FACTOR_CATALOG} scenario={scenario} onDone={onDone} />));
  return { onDone, form: screen.getByRole('form', { name: scenario ? `Edit scenario ${scenario.code}` : 'New scenario' }) };
}

const type = (label: string, value: string) => {
  fireEvent.change(screen.getByLabelText(label), { target: { value } });
};

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('ScenarioForm', { timeout: 20_000 }, () => {
  it('refuses a value outside the registry limits, names the limit and sends nothing', () => {
    const calls = recordFetch({ status: 201, body: {} });
    renderForm();
    type('Code', 'L9');
    type('Downstream Loss (%)', '150');
    fireEvent.click(screen.getByRole('button', { name: 'Add scenario' }));
    const input = screen.getByLabelText('Downstream Loss (%)');
    expect(input).toHaveAttribute('aria-invalid', 'true');
    expect(input).toHaveAccessibleDescription(/Loss must be ≤ 100 %/);
    expect(screen.getByLabelText('Upstream Loss (%)')).toHaveAttribute('aria-invalid', 'false');
    expect(calls).toEqual([]);
  });

  it('refuses an invalid code before any request', () => {
    const calls = recordFetch({ status: 201, body: {} });
    renderForm();
    type('Code', '1X');
    fireEvent.click(screen.getByRole('button', { name: 'Add scenario' }));
    expect(screen.getByLabelText('Code')).toHaveAccessibleDescription(/capital letter/);
    expect(calls).toEqual([]);
  });

  it('sends burst loss as the gilbert_elliott object with every other field', async () => {
    const calls = recordFetch({ status: 201, body: {} });
    const { onDone } = renderForm();
    type('Code', 'GE1');
    type('Label', 'Bursty loss downstream');
    type('Downstream Jitter (ms)', '10');
    type('Upstream Jitter (ms)', '10');
    expect(screen.queryByLabelText('Downstream Burst loss: p (good→bad) (%)')).toBeNull();
    fireEvent.click(screen.getByLabelText('Downstream burst loss (Gilbert–Elliott)'));
    type('Downstream Burst loss: p (good→bad) (%)', '5');
    type('Downstream Burst loss: r (bad→good) (%)', '50');
    fireEvent.click(screen.getByRole('button', { name: 'Add scenario' }));
    await waitFor(() => {
      expect(onDone).toHaveBeenCalled();
    });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ method: 'POST', url: '/api/v1/scenarios/' });
    expect(calls[0]?.body).toMatchObject({
      study: 3,
      code: 'GE1',
      is_baseline: false,
      downstream: { jitter_ms: 10, loss_pct: 0, rate_kbit: 0, gilbert_elliott: { p_pct: 5, r_pct: 50, loss_bad_pct: 100, loss_good_pct: 0 } },
      upstream: { jitter_ms: 10, gilbert_elliott: null },
    });
  });

  it('shows the server 400 next to the field it names', async () => {
    recordFetch({
      status: 400,
      body: { profile: ['downstream.gilbert_elliott: netem applies one loss model per direction', 'upstream.rate_kbit: 1.5 is not of type integer'] },
    });
    const { onDone } = renderForm();
    type('Code', 'X1');
    const rate = () => screen.getByLabelText('Upstream Rate limit (kbit/s)');
    expect(rate().closest('details')).not.toHaveAttribute('open');
    fireEvent.click(screen.getByRole('button', { name: 'Add scenario' }));
    await waitFor(() => {
      expect(screen.getByLabelText('Upstream Rate limit (kbit/s)')).toHaveAttribute('aria-invalid', 'true');
    });
    expect(rate()).toHaveAccessibleDescription(/1\.5 is not of type integer/);
    // the disclosure opens on an error inside it
    expect(rate().closest('details')).toHaveAttribute('open');
    expect(within(screen.getByTestId('direction-downstream')).getByRole('alert')).toHaveTextContent('one loss model per direction');
    expect(onDone).not.toHaveBeenCalled();
  });

  it('edits a stored scenario with PATCH, its burst loss and more factors shown', async () => {
    const calls = recordFetch({ status: 200, body: {} });
    const scenario = {
      id: 9,
      code: 'R1',
      label: 'Rate limited',
      position: 2,
      is_baseline: false,
      upstream: { delay_ms: 0, jitter_ms: 0, loss_pct: 0, rate_kbit: 2000 },
      downstream: { delay_ms: 50, jitter_ms: 0, loss_pct: 0, gilbert_elliott: { p_pct: 1, r_pct: 25, loss_bad_pct: 100, loss_good_pct: 0 } },
    } as Scenario;
    renderForm(scenario);
    expect(screen.getByLabelText('Upstream Rate limit (kbit/s)')).toHaveValue('2000');
    expect(screen.getByLabelText('Downstream Burst loss: r (bad→good) (%)')).toHaveValue('25');
    type('Downstream Delay (ms)', '60');
    fireEvent.click(screen.getByRole('button', { name: 'Save scenario' }));
    await waitFor(() => {
      expect(calls).toHaveLength(1);
    });
    expect(calls[0]).toMatchObject({ method: 'PATCH', url: '/api/v1/scenarios/9/' });
    expect(calls[0]?.body).toMatchObject({ downstream: { delay_ms: 60, gilbert_elliott: { r_pct: 25 } }, upstream: { rate_kbit: 2000 } });
  });

  it('warns about jitter on 0 ms delay without blocking the save (netem sends draws below 0 at once)', async () => {
    const calls = recordFetch({ status: 201, body: {} });
    renderForm();
    type('Code', 'J1');
    type('Downstream Jitter (ms)', '10');
    const warning = screen.getByTestId('jitter-warning-downstream');
    expect(warning).toHaveTextContent('Jitter 10 ms on 0 ms delay');
    expect(screen.queryByTestId('jitter-warning-upstream')).toBeNull();
    type('Downstream Delay (ms)', '50');
    expect(screen.queryByTestId('jitter-warning-downstream')).toBeNull();
    type('Downstream Delay (ms)', '0');
    fireEvent.click(screen.getByRole('button', { name: 'Add scenario' }));
    await waitFor(() => {
      expect(calls).toHaveLength(1);
    });
  });
});
