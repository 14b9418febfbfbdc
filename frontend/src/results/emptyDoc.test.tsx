import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { emptyAnalysisDoc, NO_RATINGS_REASON } from './emptyDoc';
import { ExplorerFigures } from './ExplorerFigures';

describe('emptyAnalysisDoc', () => {
  it('gives every figure its not-computable reason instead of a blank page', () => {
    const doc = emptyAnalysisDoc({ 'Grid Racer': 'fast' });
    expect(doc.meta.n_ratings).toBe(0);
    expect(doc.notes?.tree).toBe(NO_RATINGS_REASON);
    const { container } = render(
      <ExplorerFigures
        docs={{ all: doc, reliable: null }}
        primary={doc}
        games={['Grid Racer']}
        scenarios={[]}
        group="all raters"
        paces={null}
        ratings={[]}
        ratingsError={null}
        reliableSet={null}
      />,
    );
    const figures = [...container.querySelectorAll('figure[data-chart]')];
    expect(figures.length).toBeGreaterThan(0);
    for (const figure of figures) expect(figure.getAttribute('data-state')).toBe('not-computable');
    expect(screen.getAllByText(/Not computable yet/).length).toBe(figures.length);
  });
});
