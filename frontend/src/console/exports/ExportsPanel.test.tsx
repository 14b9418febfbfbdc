import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { mockFetch } from '../../test/fetchMock';
import type { Route } from '../../test/fetchMock';
import { GAMING_PRESET, OVERALL } from '../../participant/ratingItems.fixture';
import { POLICY_FORMATS } from '../../results/policy';
import { exportPath, studyExports } from './exports';
import { ExportsPanel } from './ExportsPanel';

const study = { id: 7, slug: 'grid', version: 3, rating_items: GAMING_PRESET };

/** Every file saved: its name and text (the Blob handed to URL.createObjectURL, then the anchor's click). */
let saved: { name: string; text: Promise<string>; type: string }[] = [];

beforeEach(() => {
  saved = [];
  let last: Blob | null = null;
  vi.stubGlobal(
    'URL',
    Object.assign(URL, {
      createObjectURL: vi.fn((blob: Blob) => {
        last = blob;
        return 'blob:x';
      }),
      revokeObjectURL: vi.fn(),
    }),
  );
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    if (last) saved.push({ name: this.download, text: last.text(), type: last.type });
  });
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

const renderPanel = () =>
  render(
    <MemoryRouter>
      <ExportsPanel study={study} />
    </MemoryRouter>,
  );

describe('studyExports', () => {
  it('lists the data exports (one sureal dataset per item) and every policy format, each with its endpoint', () => {
    const entries = studyExports(study);
    expect(entries.map((e) => e.id)).toEqual([
      'tidy-csv',
      'sureal-overall',
      'sureal-input_quality',
      'sureal-video_quality',
      'sureal-acceptance',
      'study-json',
      'items-sidecar',
      ...POLICY_FORMATS.map((f) => `policy-${f.format}`),
    ]);
    const path = (id: string, allow = false) => {
      const entry = entries.find((e) => e.id === id);
      if (!entry) throw new Error(id);
      return exportPath(7, entry, allow);
    };
    expect(path('tidy-csv')).toBe('/api/v1/studies/7/export/csv/');
    expect(path('sureal-input_quality')).toBe('/api/v1/studies/7/export/sureal/?item=input_quality');
    expect(path('study-json')).toBe('/api/v1/studies/7/export/json/');
    expect(path('items-sidecar')).toBe('/api/v1/studies/7/export/items/');
    expect(path('policy-faucet')).toBe('/api/v1/studies/7/policy/faucet/');
    expect(path('policy-ovs', true)).toBe('/api/v1/studies/7/policy/ovs/?allow_dry_run=true');
    expect(entries.find((e) => e.id === 'policy-faucet')?.filename).toBe('qoe-policy-grid-v3-faucet.yaml');
    expect(entries.every((e) => e.purpose.length > 20)).toBe(true);
  });

  it('names a single item’s sureal dataset without the item in the label', () => {
    const [sureal] = studyExports({ ...study, rating_items: [OVERALL] }).filter((e) => e.id.startsWith('sureal-'));
    expect(sureal?.label).toBe('sureal dataset');
    expect(sureal?.filename).toBe('grid-sureal-overall.json');
  });
});

describe('the exports panel', () => {
  it('downloads every export through the API under its file name', async () => {
    const entries = studyExports(study);
    const routes: Record<string, Route> = Object.fromEntries(entries.map((e) => [exportPath(7, e), { body: `contents of ${e.id}` }]));
    const fetchMock = mockFetch(routes);
    renderPanel();
    for (const entry of entries) {
      const row = document.querySelector(`[data-export="${entry.id}"]`);
      if (!(row instanceof HTMLElement)) throw new Error(entry.id);
      expect(within(row).getByText(entry.purpose, { exact: false })).toBeInTheDocument();
      fireEvent.click(within(row).getByRole('button', { name: `Download ${entry.label}` }));
      await within(row).findByText(`Saved as ${entry.filename}.`);
    }
    expect(fetchMock.mock.calls.map(([url]) => url)).toEqual(entries.map((e) => exportPath(7, e)));
    expect(saved.map((s) => s.name)).toEqual(entries.map((e) => e.filename));
    expect(await Promise.all(saved.map((s) => s.text))).toEqual(entries.map((e) => `contents of ${e.id}`));
    expect(saved[0]?.type).toBe('text/csv;charset=utf-8');
  });

  it('says beside the button why a policy is not available, and saves nothing', async () => {
    mockFetch({ '/api/v1/studies/7/policy/faucet/': { status: 409, statusText: 'Conflict', body: { detail: 'no finished analysis of version 3' } } });
    renderPanel();
    fireEvent.click(screen.getByRole('button', { name: 'Download Faucet (YAML)' }));
    const alert = await screen.findByRole('alert');
    expect(alert.closest('[data-export]')?.getAttribute('data-export')).toBe('policy-faucet');
    expect(alert).toHaveTextContent('There is no finished analysis of the current study version yet');
    expect(alert).toHaveTextContent('no finished analysis of version 3');
    expect(saved).toEqual([]);
  });

  it('offers "Download anyway" for a policy learnt mostly from dry-run ratings', async () => {
    const fetchMock = mockFetch({
      '/api/v1/studies/7/policy/ovs/': { status: 400, statusText: 'Bad Request', body: { detail: '90 % dry-run', code: 'dry_run' } },
      '/api/v1/studies/7/policy/ovs/?allow_dry_run=true': { body: '#!/bin/sh\novs-vsctl' },
    });
    renderPanel();
    fireEvent.click(screen.getByRole('button', { name: 'Download Open vSwitch (shell script)' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('learnt mostly from dry-run ratings');
    fireEvent.click(within(alert).getByRole('button', { name: 'Download anyway (dry-run ratings)' }));
    await screen.findByText('Saved as qoe-policy-grid-v3-ovs.sh.');
    expect(fetchMock.mock.calls.at(-1)?.[0]).toBe('/api/v1/studies/7/policy/ovs/?allow_dry_run=true');
    expect(saved.map((s) => s.name)).toEqual(['qoe-policy-grid-v3-ovs.sh']);
  });

  it('refuses an empty answer and says so for a data export', async () => {
    mockFetch({ '/api/v1/studies/7/export/csv/': { body: '' } });
    renderPanel();
    fireEvent.click(screen.getByRole('button', { name: 'Download tidy CSV' }));
    await waitFor(() => {
      expect(screen.getByRole('alert')).toHaveTextContent('Not downloaded: The server answered an empty file.');
    });
    expect(saved).toEqual([]);
  });
});
