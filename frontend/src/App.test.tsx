import { render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';

import { App } from './App';
import { mockFetch } from './test/fetchMock';

describe('App', () => {
  it('renders the header on every route and a not-found page for unknown paths', () => {
    const fetchMock = mockFetch({});
    render(
      <MemoryRouter initialEntries={['/no-such-page']}>
        <App />
      </MemoryRouter>,
    );

    expect(screen.getByRole('heading', { level: 1, name: 'QoE Lab' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Page not found' })).toBeInTheDocument();
    expect(screen.getByRole('main')).toBeInTheDocument();
    expect(fetchMock).not.toHaveBeenCalled();
  });
});
