import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { HeatmapFigure, ThresholdsFigure, TreeFigure } from './charts/figures';
import { testDoc } from './testDoc';
import { toTidyRatings } from './transforms';

describe('HTML and SVG figures', () => {
  it('draws the M1 × M2 heat map as an accessible table per game, diagonal marked', () => {
    const ratings = toTidyRatings([
      { rater_id: 'P1', session_id: 'S1', game: 'racing', scenario: 'M1', rating: '2' },
      { rater_id: 'P1', session_id: 'S1', game: 'racing', scenario: 'M2', rating: '1' },
    ]);
    const { container } = render(<HeatmapFigure ratings={ratings} games={['racing', 'rpg']} raters={null} group="all raters" />);
    expect(container.querySelector('figure')).toHaveAttribute('data-points', '50');
    const table = screen.getByRole('table', { name: 'M1 vs M2 ratings, racing' });
    expect(within(table).getAllByRole('cell')).toHaveLength(25);
    expect(table.querySelector('[data-cell="2,1"]')).toHaveTextContent(/^1/);
    expect(table.querySelectorAll('.heatmap__cell--diagonal')).toHaveLength(5);
    expect(screen.getByText(/racing — 1 sessions: 100 % prefer M1/)).toBeInTheDocument();
    expect(screen.getAllByRole('button', { name: 'Download PNG' })).toHaveLength(1);
    expect(screen.getAllByRole('button', { name: 'Download CSV' })).toHaveLength(1);
  });

  it('draws the decision tree as SVG nodes with their tests', () => {
    const { container } = render(<TreeFigure doc={testDoc()} />);
    expect(container.querySelectorAll('g[data-node]')).toHaveLength(5);
    expect(container.querySelector('figure')).toHaveAttribute('data-points', '5');
    expect(screen.getByRole('img', { name: 'Decision tree with 5 nodes' })).toBeInTheDocument();
    expect(container.textContent).toContain('Downstream packet loss');
    expect(container.textContent).toContain('game_pace = fast');
  });

  it('lists the KPI thresholds per game class', () => {
    render(<ThresholdsFigure doc={testDoc()} paces={['fast']} />);
    const table = screen.getByRole('table', { name: 'KPI thresholds per game class' });
    expect(within(table).getAllByRole('row')).toHaveLength(1 + 6);
    expect(within(table).getAllByText('130 ms').length).toBeGreaterThan(0);
    expect(within(table).getAllByText('beyond tested range').length).toBeGreaterThan(0);
  });
});
