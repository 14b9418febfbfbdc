import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { recordFetch } from '../../test/fetchMock';
import { exampleStudy } from '../../test/fixtures';
import { withQueries } from '../../test/queries';
import { SettingsForm } from './SettingsForm';

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('SettingsForm', { timeout: 20_000 }, () => {
  it('marks the study as a rehearsal (dry-run agents allowed) and saves the flag', async () => {
    const calls = recordFetch({ status: 200, body: { ...exampleStudy, rehearsal: true } });
    const onSaved = vi.fn();
    render(withQueries(<SettingsForm study={exampleStudy} onSaved={onSaved} />));
    const box = screen.getByRole('checkbox', { name: /Rehearsal: may run on dry-run agents/ });
    expect(box).not.toBeChecked();
    fireEvent.click(box);
    fireEvent.click(screen.getByRole('button', { name: 'Save settings' }));
    await waitFor(() => {
      expect(onSaved).toHaveBeenCalled();
    });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ method: 'PATCH', url: `/api/v1/studies/${exampleStudy.id}/`, body: { rehearsal: true } });
  });

  it('sends rehearsal false for a real study', async () => {
    const calls = recordFetch({ status: 200, body: exampleStudy });
    render(withQueries(<SettingsForm study={{ ...exampleStudy, rehearsal: true }} onSaved={vi.fn()} />));
    const box = screen.getByRole('checkbox', { name: /Rehearsal/ });
    expect(box).toBeChecked();
    fireEvent.click(box);
    fireEvent.click(screen.getByRole('button', { name: 'Save settings' }));
    await screen.findByText('Saved.');
    expect(calls[0]?.body).toMatchObject({ rehearsal: false });
  });

  it('shows the scale labels read-only, points to the rating items, and never sends them', async () => {
    const calls = recordFetch({ status: 200, body: exampleStudy });
    render(withQueries(<SettingsForm study={exampleStudy} onSaved={vi.fn()} />));
    const labels = screen.getByRole('group', { name: 'Rating scale labels' });
    expect(within(labels).queryByRole('textbox')).toBeNull();
    expect(within(labels).getByTestId('settings-scale-labels')).toHaveTextContent('overall: 1 Bad · 2 Poor · 3 Fair · 4 Good · 5 Excellent');
    expect(within(labels).getByRole('link', { name: 'Rating items' })).toHaveAttribute('href', '#rating-items-heading');
    fireEvent.click(screen.getByRole('button', { name: 'Save settings' }));
    await screen.findByText('Saved.');
    expect(calls[0]?.body).not.toHaveProperty('scale_labels');
  });
});
