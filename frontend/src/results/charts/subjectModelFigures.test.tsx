import { render, screen, within } from '@testing-library/react';
import type { ChartData, ChartOptions, TooltipItem } from 'chart.js';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { emptyAnalysisDoc, NO_RATINGS_REASON } from '../emptyDoc';
import { ExplorerFigures } from '../ExplorerFigures';
import { oneSessionFixture } from '../fixtures';
import { subjectModelDoc } from '../subjectModelFixture';
import { gameNames, scenarioCodes } from '../transforms';
import { MleQualityFigure } from './MleQualityFigure';
import { RaterBiasFigure } from './RaterBiasFigure';

interface Drawn {
  type: string;
  data: ChartData<'scatter'>;
  options: ChartOptions<'scatter'>;
  'aria-label': string;
}

// jsdom has no canvas: the stand-in keeps what Chart.js would receive (datasets, options)
const charts = vi.hoisted(() => [] as Drawn[]);
vi.mock('react-chartjs-2', () => ({
  Chart: (p: Drawn) => {
    charts.push(p);
    return <canvas role="img" aria-label={p['aria-label']} data-drawn={p.data.datasets.reduce((n, d) => n + d.data.length, 0)} />;
  },
}));

afterEach(() => {
  charts.length = 0;
});

const lastChart = (): Drawn => {
  const chart = charts.at(-1);
  if (!chart) throw new Error('no chart drawn');
  return chart;
};
/** The tooltip lines Chart.js would show for a point (the callback reads only the indices). */
const tooltipAt = (chart: Drawn, datasetIndex: number, dataIndex: number) =>
  chart.options.plugins?.tooltip?.callbacks?.label?.call({} as never, { datasetIndex, dataIndex } as TooltipItem<'scatter'>);

describe('RaterBiasFigure on a real analysis document', () => {
  it('draws each fitted rater at (inconsistency, bias), grouped and marked by P.913 status', () => {
    const doc = subjectModelDoc();
    const { container } = render(<RaterBiasFigure doc={doc} />);
    const figure = container.querySelector('figure[data-chart="rater-bias"]');
    // 13 raters, of whom P06, P25 (fitted exactly) and P99 (one condition) are not fitted
    expect(figure).toHaveAttribute('data-points', '10');
    expect(figure).toHaveAttribute('data-state', 'drawn');
    const { datasets } = lastChart().data;
    expect(datasets.map((d) => d.label)).toEqual(['P.913 reliable (7)', 'P.913 unreliable (2)', 'P.913 not assessable (1)']);
    expect(datasets.map((d) => d.pointStyle)).toEqual(['circle', 'triangle', 'rect']);
    const byId = new Map((doc.subject_model?.raters ?? []).map((r) => [r.rater_id, r]));
    // unreliable, in rater order: P16 then P37
    const p16 = byId.get('P16');
    expect(datasets[1]?.data[0]).toEqual({ x: p16?.inconsistency, y: p16?.bias });
    expect(datasets[1]?.errorBars?.low[0]).toBe(p16?.bias_ci95_low);
    expect(datasets[2]?.data[0]).toEqual({ x: byId.get('P48')?.inconsistency, y: byId.get('P48')?.bias });
    // reliable, in rater order: P02 P03 P10 …; P10 has bias −1.13, inconsistency 0.501
    expect(datasets[0]?.data[2]).toEqual({ x: byId.get('P10')?.inconsistency, y: byId.get('P10')?.bias });
    expect(byId.get('P10')?.bias).toBeCloseTo(-1.13, 9);
  });

  it('says in the tooltip who the rater is, the bias with its CI and why P.913 rejected them', () => {
    render(<RaterBiasFigure doc={subjectModelDoc()} />);
    const lines = tooltipAt(lastChart(), 1, 0);
    // υ = 1.473, n = 10: se(Δ) = υ/√10 = 0.466, se(υ) = υ/√20 = 0.329; CI = ± 1.96 se
    expect(lines).toEqual([
      'Rater P16 (10 ratings)',
      'Bias +1.07 (95 % CI 0.16 … 1.98)',
      'Inconsistency 1.47 (95 % CI 0.83 … 2.12)',
      'P.913 unreliable: pass 1: r1 = 0.137 < 0.75 and r2 = 0.137 < 0.8',
    ]);
  });

  it('names the raters it leaves out with the model’s reason and exports every rater', () => {
    const { container } = render(<RaterBiasFigure doc={subjectModelDoc()} />);
    const note = container.querySelector('[data-figure-note="rater-bias"]');
    expect(note).toHaveTextContent('Left out (3)');
    expect(note).toHaveTextContent(/P99 — rated one condition only/);
    expect(note).toHaveTextContent(/P06 — the model reproduces these raters' ratings exactly/);
    const table = screen.getByRole('table', { name: 'Bias and inconsistency per rater' });
    expect(within(table).getAllByRole('row')).toHaveLength(1 + 13);
    expect(within(table).getAllByText('not_identifiable')).toHaveLength(3);
  });

  it('is not computable, with the document’s reason, when no rater is fitted', () => {
    const pilot = oneSessionFixture().doc;
    render(<RaterBiasFigure doc={pilot} />);
    expect(screen.getByText('Not computable yet: needs ≥ 2 raters who rated the same conditions')).toBeInTheDocument();
    expect(charts).toHaveLength(0);
  });

  it('falls back to the not_identifiable reasons, and says when the document predates the model', () => {
    const doc = subjectModelDoc();
    delete doc.notes;
    const model = doc.subject_model;
    if (!model) throw new Error('fixture without subject model');
    model.raters = model.raters.map((r) => ({ ...r, bias: null, inconsistency: null, status: 'not_identifiable' }));
    const { unmount } = render(<RaterBiasFigure doc={doc} />);
    expect(screen.getByText(/^Not computable yet: not identifiable: rated one condition only/)).toBeInTheDocument();
    unmount();
    delete doc.subject_model;
    render(<RaterBiasFigure doc={doc} />);
    expect(screen.getByText(/stored before the subject model existed/)).toBeInTheDocument();
  });
});

describe('MleQualityFigure on a real analysis document', () => {
  it('puts the MOS with its t-CI left of ψ with its CI for every condition', () => {
    const doc = subjectModelDoc();
    const { container } = render(<MleQualityFigure doc={doc} games={gameNames(doc)} scenarios={scenarioCodes(doc)} />);
    expect(container.querySelector('figure[data-chart="mle-quality"]')).toHaveAttribute('data-points', '20');
    const [mos, mle] = lastChart().data.datasets;
    expect(mos?.data).toHaveLength(10);
    expect(mle?.data).toHaveLength(10);
    const order = scenarioCodes(doc);
    const b = order.indexOf('B');
    const condB = doc.conditions.find((c) => c.scenario === 'B' && c.game === 'soccer');
    const psiB = doc.subject_model?.conditions?.find((c) => c.scenario === 'B');
    expect(mos?.data[b]).toEqual({ x: b - 0.17, y: condB?.mos });
    expect(mos?.errorBars?.low[b]).toBe(condB?.ci95_low);
    expect(mle?.data[b]).toEqual({ x: b + 0.17, y: psiB?.quality });
    expect(mle?.errorBars?.high[b]).toBe(psiB?.ci95_high);
  });

  it('exports MOS and MLE columns side by side with their difference', () => {
    const doc = subjectModelDoc();
    render(<MleQualityFigure doc={doc} games={['soccer']} scenarios={['B', 'D1']} />);
    const table = screen.getByRole('table', { name: 'MOS and MLE quality per condition' });
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(1 + 10);
    const [, first, second] = rows;
    if (!first || !second) throw new Error('rows missing');
    // B first (the given order), then D1; the 8 unlisted scenarios after them
    const cells = within(first).getAllByRole('cell').map((c) => c.textContent);
    // MOS 57/13 = 4.385 (t-CI 4.079 … 4.691), ψ 4.850 (4.530 … 5.170): 4.850 − 4.385 = 0.465;
    // ψ's interval reaches beyond 5 in this document stored before intervals were clipped:
    // flagged (and drawn cut at the axis)
    expect(cells.slice(0, 14)).toEqual([
      'B',
      'soccer',
      '13',
      '4.385',
      '4.079',
      '4.691',
      '95 % CI',
      '4.850',
      '0.163',
      '4.530',
      '5.170',
      'interval clipped to the scale',
      '0.465',
      '0',
    ]);
    expect(within(second).getAllByRole('cell')[0]).toHaveTextContent('D1');
  });

  it('is not computable with the document’s reason, or because the document predates ψ', () => {
    const { unmount } = render(<MleQualityFigure doc={oneSessionFixture().doc} games={['racing']} scenarios={['B']} />);
    expect(screen.getByText('Not computable yet: needs ≥ 2 raters who rated the same conditions')).toBeInTheDocument();
    unmount();
    const old = subjectModelDoc();
    delete old.notes;
    if (old.subject_model) delete old.subject_model.conditions;
    render(<MleQualityFigure doc={old} games={['soccer']} scenarios={['B']} />);
    expect(screen.getByText(/stored before the per-condition quality was reported/)).toBeInTheDocument();
  });
});

describe('the explorer', () => {
  const props = (doc: ReturnType<typeof subjectModelDoc>) => ({
    docs: { all: doc, reliable: null },
    primary: doc,
    games: gameNames(doc),
    scenarios: scenarioCodes(doc),
    group: 'all raters',
    paces: null,
    ratings: [],
    ratingsError: null,
    reliableSet: null,
  });

  it('shows both subject-model figures in their own section', () => {
    const { container } = render(<ExplorerFigures {...props(subjectModelDoc())} />);
    const section = screen.getByRole('region', { name: "Subject model (raters' bias and inconsistency)" });
    expect(section.querySelector('figure[data-chart="rater-bias"]')).toHaveAttribute('data-state', 'drawn');
    expect(section.querySelector('figure[data-chart="mle-quality"]')).toHaveAttribute('data-state', 'drawn');
    expect(container.querySelector('[data-state="error"]')).toBeNull();
  });

  it('marks both as not computable in a study without ratings', () => {
    const { container } = render(<ExplorerFigures {...props(emptyAnalysisDoc({ soccer: 'slow' }))} />);
    for (const id of ['rater-bias', 'mle-quality']) {
      const figure = container.querySelector(`figure[data-chart="${id}"]`);
      expect(figure).toHaveAttribute('data-state', 'not-computable');
      expect(figure?.querySelector('[data-not-computable]')).toHaveTextContent(`Not computable yet: ${NO_RATINGS_REASON}`);
    }
  });
});
