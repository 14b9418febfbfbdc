import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';

import { App } from '../App';
import { fakeAuthServer } from '../test/fakeAuthServer';

afterEach(() => {
  document.cookie = 'csrftoken=; expires=Thu, 01 Jan 1970 00:00:00 GMT';
});

const routes = { '/api/v1/studies/': [{ id: 1, slug: 's', title: 'Cloud gaming QoE', description: '', game_count: 3, scenario_count: 10 }] };

function renderAt(path: string) {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <App />
    </MemoryRouter>,
  );
}

async function signIn(password: string) {
  fireEvent.change(await screen.findByLabelText('User name'), { target: { value: 'bob' } });
  fireEvent.change(screen.getByLabelText('Password'), { target: { value: password } });
  fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
}

describe('researcher sign-in', () => {
  it('sends a signed-out researcher to /login, signs in through the API and comes back', async () => {
    const server = fakeAuthServer({ routes });
    renderAt('/console');

    expect(await screen.findByRole('heading', { name: 'Researcher sign-in' })).toBeInTheDocument();
    await signIn('wrong');
    expect(await screen.findByRole('alert')).toHaveTextContent('Wrong user name or password');

    await signIn('secret-password');
    expect(await screen.findByRole('heading', { name: 'Studies', level: 2 })).toBeInTheDocument();
    expect(await screen.findByText('Cloud gaming QoE')).toBeInTheDocument();
    const account = screen.getByRole('group', { name: 'Account' });
    expect(within(account).getByTestId('signed-in-user')).toHaveTextContent('bob');
    // The session is probed with "who am I", never with a researcher endpoint or the admin.
    const urls = server.state.calls.map((c) => c.url);
    expect(urls).toContain('/api/v1/auth/me/');
    expect(urls.some((u) => u.startsWith('/admin/') || u === '/api/v1/stations/')).toBe(false);
  });

  it('shows the console to a signed-in researcher and signs out from the header', async () => {
    const server = fakeAuthServer({ routes, signedIn: true });
    renderAt('/console');
    expect(await screen.findByText('Cloud gaming QoE')).toBeInTheDocument();

    fireEvent.click(within(screen.getByRole('group', { name: 'Account' })).getByRole('button', { name: 'Sign out' }));

    expect(await screen.findByRole('heading', { name: 'Researcher sign-in' })).toBeInTheDocument();
    expect(server.state.signedIn).toBe(false);
    const logoutCall = server.state.calls.find((c) => c.url === '/api/v1/auth/logout/');
    expect(logoutCall?.method).toBe('POST');
    expect(logoutCall?.headers.get('X-CSRFToken')).toBe('token-1');
    expect(screen.queryByRole('group', { name: 'Account' })).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Researcher sign-in' })).toBeInTheDocument();
  });

  it('forwards a researcher who is already signed in from /login to the next page', async () => {
    fakeAuthServer({ routes, signedIn: true });
    renderAt('/login?next=%2Fconsole');
    expect(await screen.findByText('Cloud gaming QoE')).toBeInTheDocument();
  });

  it('offers to retry when the server cannot be reached', async () => {
    const server = fakeAuthServer({ routes });
    server.fetchMock.mockImplementationOnce(() => Promise.reject(new TypeError('Failed to fetch')));
    renderAt('/console');
    expect(await screen.findByText(/Could not reach the server: Network error: Failed to fetch/)).toBeInTheDocument();
    server.state.signedIn = true;
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    await waitFor(() => {
      expect(screen.getByText('Cloud gaming QoE')).toBeInTheDocument();
    });
  });
});
