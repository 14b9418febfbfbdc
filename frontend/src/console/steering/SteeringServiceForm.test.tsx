import { fireEvent, render, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';

import { jsonResponse } from '../../test/fetchMock';
import { withQueries } from '../../test/queries';
import { service } from './statusFixture';
import { SteeringServiceForm } from './SteeringServiceForm';
import type { SteeringService } from './steeringTypes';

function renderForm(current?: SteeringService) {
  const bodies: unknown[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn((_input: RequestInfo | URL, init?: RequestInit) => {
      bodies.push(typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : null);
      return Promise.resolve(jsonResponse({ ...service, ...(bodies.at(-1) as object) }));
    }),
  );
  const onSaved = vi.fn();
  render(withQueries(current ? <SteeringServiceForm service={current} onSaved={onSaved} /> : <SteeringServiceForm onSaved={onSaved} />));
  const form = screen.getByRole('form', { name: current ? `Edit ${current.name}` : 'New steering service' });
  return { form, bodies, onSaved };
}

// Catches: the shared endpoint fields losing the steering texts, or the token rule
// (required for a new service and after a URL change, not after a pasted /v1/status).
describe('SteeringServiceForm token rule', () => {
  it('requires the token of a new service and says it is never shown again', () => {
    const { form } = renderForm();
    expect(within(form).getByLabelText('Status token')).toBeRequired();
    expect(within(form).getByText(/The daemon’s \[status\] token \(at least 16 characters\)/)).toBeInTheDocument();
  });

  it('asks for the token again when the status URL changes, and sends nothing until it is typed', async () => {
    const { form, bodies, onSaved } = renderForm(service);
    expect(within(form).getByLabelText('Status token')).not.toBeRequired();
    expect(within(form).getByText('Leave empty to keep the stored token (never shown).')).toBeInTheDocument();

    fireEvent.change(within(form).getByLabelText('Status URL'), { target: { value: 'http://127.0.0.1:8791' } });
    expect(within(form).getByLabelText('Status token')).toBeRequired();
    expect(within(form).getByText(/so enter the token of the service at the new URL/)).toBeInTheDocument();
    fireEvent.click(within(form).getByRole('button', { name: 'Save service' }));
    expect(await within(form).findByText(/Enter the service's token for the new URL/)).toBeInTheDocument();
    expect(bodies).toEqual([]);

    fireEvent.change(within(form).getByLabelText('Status token'), { target: { value: 'a-status-token-0123456789' } });
    expect(within(form).queryByText(/Enter the service's token for the new URL/)).toBeNull();
    fireEvent.click(within(form).getByRole('button', { name: 'Save service' }));
    expect(await within(form).findByText('Saved.')).toBeInTheDocument();
    expect(bodies).toEqual([{ name: 'Lab steer', status_url: 'http://127.0.0.1:8791', ca_cert: '', token: 'a-status-token-0123456789' }]);
    expect(onSaved).toHaveBeenCalledTimes(1);
  });

  it('needs no token when only /v1/status is pasted after the same URL', async () => {
    const { form, bodies } = renderForm(service);
    fireEvent.change(within(form).getByLabelText('Status URL'), { target: { value: 'http://127.0.0.1:8790/v1/status' } });
    expect(within(form).getByLabelText('Status token')).not.toBeRequired();
    fireEvent.click(within(form).getByRole('button', { name: 'Save service' }));
    expect(await within(form).findByText('Saved.')).toBeInTheDocument();
    expect(bodies).toEqual([{ name: 'Lab steer', status_url: 'http://127.0.0.1:8790/v1/status', ca_cert: '' }]);
  });
});
