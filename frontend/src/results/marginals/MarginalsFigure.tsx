/**
 * MOS by factor level (the marginal views, issue 32 item 5): for one rating item and one
 * factor, the MOS with its 95 % CI at each point the analysis made (tested levels, or
 * equal-count bins of a factor with many values), per game and over all games, every
 * rating at that point pooled whatever the other factors were. A table view lists every
 * factor of the item at once. Everything drawn is the document's `marginals` section.
 */
import { useId, useState } from 'react';
import type { ReactNode } from 'react';
import type { ChartData, ChartOptions, TooltipItem } from 'chart.js';
import { Chart as ChartCanvas } from 'react-chartjs-2';

import type { AnalysisDoc } from '../analysisTypes';
import { tablesToPng } from '../charts/canvasTable';
import { count, mosAxis, useChartRef } from '../charts/common';
import { Figure } from '../charts/Figure';
import { colour, intervalTooltip } from '../charts/setup';
import { intervalLegend, warningsFor } from '../evidence';
import type { ScaleRange } from '../evidence';
import { gameKeys, gameLabel } from '../factors';
import {
  binningText,
  docMarginals,
  isPooled,
  itemScale,
  itemText,
  MARGINAL_HEADER,
  marginalItems,
  marginalRows,
  MARGINALS_ABSENT,
  MARGINALS_NO_RATINGS,
  MARGINALS_WHERE,
  marginalSeries,
  marginalTitle,
  missingText,
  numericAxis,
  pointLabels,
  pointStatus,
  raterCaution,
  ratersText,
  sectionNotes,
} from './marginalsDoc';
import type { MarginalFactor, Marginals, ShownSeries } from './marginalsDoc';
import { MarginalsTable, marginalsCanvasTables } from './MarginalsTable';

type View = 'chart' | 'table';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The view, or one line saying why there is none (a stored document from before the section). */
export function MarginalsView({ doc, games }: { doc: AnalysisDoc; games: string[] }) {
  const section = docMarginals(doc);
  if (!section) {
    return (
      <p className="status figure__absent" data-marginals="absent">
        {doc.meta.n_ratings === 0 ? MARGINALS_NO_RATINGS : MARGINALS_ABSENT}
      </p>
    );
  }
  return <MarginalsFigure doc={doc} section={section} games={games} />;
}

function Select({ label, value, onChange, children }: { label: string; value: string; onChange: (v: string) => void; children: ReactNode }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => { onChange(e.target.value); }}>
        {children}
      </select>
    </div>
  );
}

/** The factor choices, network factors and per-rater factors apart when both are there. */
function FactorOptions({ factors }: { factors: readonly MarginalFactor[] }) {
  const option = (f: MarginalFactor) => (
    <option key={f.factor} value={f.factor}>
      {marginalTitle(f)}
    </option>
  );
  const network = factors.filter((f) => f.source === 'network');
  const rater = factors.filter((f) => f.source === 'rater');
  if (network.length === 0 || rater.length === 0) return <>{factors.map(option)}</>;
  return (
    <>
      <optgroup label="Network factors">{network.map(option)}</optgroup>
      <optgroup label="Per-rater factors">{rater.map(option)}</optgroup>
    </>
  );
}

function gamesText(keys: readonly string[]): string {
  if (keys.length === 1) return isPooled(keys[0] ?? '') ? 'all games pooled' : `game ${keys[0] ?? ''}`;
  const each = keys.filter((k) => !isPooled(k));
  return `each game (${each.join(', ')})${keys.some(isPooled) ? ' and all games pooled' : ', not pooled'}`;
}

function chartData(f: MarginalFactor, series: readonly ShownSeries[], numeric: boolean, scale: ScaleRange): ChartData<'line'> {
  return {
    ...(numeric ? {} : { labels: pointLabels(series) }),
    datasets: series.map((s, i) => {
      const drawn = s.points.filter((p) => p.mos !== null);
      return {
        label: gameLabel(s.game),
        data: drawn.map((p) => ({ x: (numeric ? p.level : p.label) as number, y: p.mos ?? 0 })),
        borderColor: colour(i),
        backgroundColor: colour(i),
        borderDash: isPooled(s.game) && series.length > 1 ? [6, 4] : [],
        // a line between the levels of a nominal factor would suggest an order it lacks
        showLine: f.kind === 'numeric',
        pointRadius: 4,
        errorBars: { low: drawn.map((p) => p.ci95_low), high: drawn.map((p) => p.ci95_high), status: drawn.map((p) => pointStatus(p, scale)) },
      };
    }),
  };
}

function MarginalsFigure({ doc, section, games }: { doc: AnalysisDoc; section: Marginals; games: string[] }) {
  const { ref, png: chartPng } = useChartRef();
  const items = marginalItems(section);
  const factors = section.factors;
  const [chosenItem, setItem] = useState('');
  const [chosenFactor, setFactor] = useState('');
  const [view, setView] = useState<View>('chart');
  const primary = doc.meta.primary_item ?? '';
  const item = items.includes(chosenItem) ? chosenItem : items.includes(primary) ? primary : (items[0] ?? '');
  const factor = factors.find((f) => f.factor === chosenFactor) ?? factors[0];
  const keys = gameKeys(doc, games, true);
  const scale = itemScale(doc, item);
  const series = factor ? marginalSeries(section, item, factor.factor, keys) : [];
  const numeric = factor ? numericAxis(factor, series) : false;
  const shownFactors = view === 'table' ? factors : factor ? [factor] : [];
  const points = shownFactors.reduce((n, f) => n + marginalSeries(section, item, f.factor, keys).reduce((m, s) => m + count(s.points.map((p) => p.mos)), 0), 0);
  const title = factor ? marginalTitle(factor) : 'a factor';
  const options: ChartOptions<'line'> = {
    maintainAspectRatio: false,
    scales: { x: { type: numeric ? 'linear' : 'category', title: { display: true, text: title } }, y: mosAxis(scale, `MOS (${item})`) },
    plugins: {
      legend: { position: 'bottom' },
      tooltip: {
        callbacks: {
          // n ratings and n raters beside each MOS, then the interval's status when it is not an ordinary CI
          afterLabel: (t: TooltipItem<'line'>) => {
            const p = series[t.datasetIndex]?.points.filter((x) => x.mos !== null)[t.dataIndex];
            return [p ? `n = ${plural(p.n, 'rating')}, ${plural(p.n_raters, 'rater')}` : '', intervalTooltip(t)].filter(Boolean);
          },
        },
      },
    },
  };
  const unavailable =
    factors.length === 0
      ? 'no factor has two or more values among the ratings'
      : items.length === 0
        ? 'no rating in any point'
        : points === 0
          ? `no rating of ${item} at any point of ${view === 'table' ? 'any factor' : title} for ${gamesText(keys)}`
          : null;
  const notes =
    view === 'chart' && factor
      ? [binningText(factor, Math.max(0, ...series.map((s) => s.points.length))) + '.', raterCaution(factor), missingText(factor, series), intervalLegend(series.flatMap((s) => s.points.map((p) => pointStatus(p, scale))), scale)]
      : [];
  const note = [...notes, ...sectionNotes(section).map((n) => `No view: ${n}.`)].filter(Boolean).join(' ');
  const label = view === 'table' ? `MOS of ${item} by level of every factor` : `MOS of ${item} by level of ${title}`;
  const png = () => (view === 'table' ? tablesToPng(marginalsCanvasTables(section, item, factors, keys, scale), label) : chartPng());
  return (
    <Figure
      id="marginals"
      reference="Explore"
      title="MOS by factor level (marginal)"
      caption={
        <>
          MOS of {item} ({scale.min} … {scale.max}) with 95 % confidence intervals at each level or bin of {view === 'table' ? 'every factor' : 'the chosen factor'}: every
          rating whose value falls there, whatever the other factors were ({ratersText(section)}), for {gamesText(keys)}. n ratings and n raters per point are in the
          table and the tooltip; a rating without a value of the factor is in no point.
        </>
      }
      points={points}
      csv={{ header: MARGINAL_HEADER, rows: marginalRows(section, item, shownFactors, keys) }}
      png={png}
      filename={view === 'table' ? `mos-by-level-${item}` : `mos-by-level-${item}-${factor?.factor ?? 'factor'}`}
      unavailable={unavailable}
      note={note || undefined}
      warnings={warningsFor(doc, MARGINALS_WHERE)}
      controls={
        factors.length > 0 && (
          <>
            {items.length > 1 && (
              <Select label="Item" value={item} onChange={setItem}>
                {items.map((i) => (
                  <option key={i} value={i}>
                    {itemText(doc, i)}
                  </option>
                ))}
              </Select>
            )}
            {view === 'chart' && (
              <Select label="Factor" value={factor?.factor ?? ''} onChange={setFactor}>
                <FactorOptions factors={factors} />
              </Select>
            )}
            <Select label="Show" value={view} onChange={(v) => { setView(v === 'table' ? 'table' : 'chart'); }}>
              <option value="chart">Chart (one factor)</option>
              <option value="table">Table (every factor)</option>
            </Select>
          </>
        )
      }
      table={view === 'chart' && factor ? <MarginalsTable section={section} item={item} factors={[factor]} games={keys} scale={scale} label={label} /> : undefined}
    >
      {view === 'table' ? (
        <MarginalsTable section={section} item={item} factors={factors} games={keys} scale={scale} label={label} />
      ) : (
        <div className="chart-box">
          {factor && (
            <ChartCanvas
              ref={ref as never}
              type="line"
              data={chartData(factor, series, numeric, scale)}
              options={options}
              role="img"
              aria-label={`Line chart: MOS of ${item} by level of ${title}, ${points} points`}
            />
          )}
        </div>
      )}
    </Figure>
  );
}
