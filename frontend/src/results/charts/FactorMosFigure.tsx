/**
 * MOS against any one varying factor with 95 % CIs, as the analysis computed them
 * (`mos_by_factor.single`), per game and pooled; the other factors held at baseline or averaged.
 */
import { useId, useState } from 'react';
import type { ChartData, ChartOptions } from 'chart.js';
import { Chart as ChartCanvas } from 'react-chartjs-2';

import { ALL_GAMES } from '../analysisTypes';
import type { AnalysisDoc } from '../analysisTypes';
import type { Cell } from '../csv';
import { factorInfo, factorNotes, factorSeries, factorTitle, formatLevel, gameKeys, gameLabel, holdText, mosByFactor, NEEDS_RERUN, varyingFactors } from '../factors';
import type { FactorSeries, HoldMode, Level } from '../factors';
import { FIGURE_WHERE, intervalLegend, intervalStatus, intervalText, mosScale, warningsFor } from '../evidence';
import { count, fmt, INTERVAL_TOOLTIP, mosAxis, useChartRef } from './common';
import { DataTable, Figure } from './Figure';
import { colour } from './setup';

export function FactorSelect({ doc, label, value, onChange, exclude }: { doc: AnalysisDoc; label: string; value: string; onChange: (v: string) => void; exclude?: string }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => { onChange(e.target.value); }}>
        {varyingFactors(doc).map((f) => (
          <option key={f} value={f} disabled={f === exclude}>
            {factorTitle(doc, f)}
          </option>
        ))}
      </select>
    </div>
  );
}

export function HoldSelect({ value, onChange }: { value: HoldMode; onChange: (v: HoldMode) => void }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>Other factors</label>
      <select id={id} value={value} onChange={(e) => { onChange(e.target.value === 'averaged' ? 'averaged' : 'baseline'); }}>
        <option value="baseline">held at baseline</option>
        <option value="averaged">averaged</option>
      </select>
    </div>
  );
}

/** The x levels of the series, in the analysis' order (the same in every series of a factor). */
function levelsOf(series: readonly FactorSeries[]): Level[] {
  return [...new Set(series.flatMap((s) => s.points.map((p) => p.level)))];
}

function gamesText(keys: readonly string[]): string {
  if (keys.length === 1) return keys[0] === ALL_GAMES ? 'all games pooled' : `game ${keys[0] ?? ''}`;
  const each = keys.filter((k) => k !== ALL_GAMES);
  return `each game (${each.join(', ')})${keys.includes(ALL_GAMES) ? ' and all games pooled' : ', not pooled'}`;
}

export function FactorMosFigure({ doc, games, group }: { doc: AnalysisDoc; games: string[]; group: string }) {
  const { ref, png } = useChartRef();
  const factors = varyingFactors(doc);
  const section = mosByFactor(doc);
  const [chosen, setFactor] = useState('');
  const [mode, setMode] = useState<HoldMode>('baseline');
  const factor = factors.includes(chosen) ? chosen : (factors[0] ?? '');
  const keys = gameKeys(doc, games, true);
  const series = section && factor ? factorSeries(section, factor, keys, mode) : [];
  const levels = levelsOf(series);
  const numeric = factorInfo(doc, factor).kind === 'numeric' && levels.every((l) => typeof l === 'number');
  const scale = mosScale(doc);
  const chartData: ChartData<'line'> = {
    ...(numeric ? {} : { labels: levels.map(String) }),
    datasets: series.map((s, i) => {
      const drawn = s.points.filter((p) => p.mos !== null);
      return {
        label: gameLabel(s.game),
        data: drawn.map((p) => ({ x: (numeric ? p.level : String(p.level)) as number, y: p.mos ?? 0 })),
        borderColor: colour(i),
        backgroundColor: colour(i),
        borderDash: s.game === ALL_GAMES && series.length > 1 ? [6, 4] : [],
        pointRadius: 4,
        errorBars: { low: drawn.map((p) => p.ci95_low), high: drawn.map((p) => p.ci95_high), status: drawn.map((p) => intervalStatus(p, scale)) },
      };
    }),
  };
  const options: ChartOptions<'line'> = {
    maintainAspectRatio: false,
    scales: { x: { type: numeric ? 'linear' : 'category', title: { display: true, text: factor ? factorTitle(doc, factor) : '' } }, y: mosAxis(scale) },
    plugins: { legend: { position: 'bottom' }, tooltip: INTERVAL_TOOLTIP },
  };
  const held = factor ? holdText(doc, [factor], mode) : '';
  const header = ['game', factor || 'factor', 'n', 'mos', 'ci95_low', 'ci95_high', 'ci95_status', 'scenarios'];
  const rows: Cell[][] = series.flatMap((s) =>
    s.points.map((p) => [s.game, formatLevel(doc, factor, p.level), p.n, fmt(p.mos), fmt(p.ci95_low), fmt(p.ci95_high), intervalText(intervalStatus(p, scale)) || null, p.scenarios.join(' ')]),
  );
  const legend = intervalLegend(series.flatMap((s) => s.points.map((p) => intervalStatus(p, scale))), scale);
  const points = series.reduce((sum, s) => sum + count(s.points.map((p) => p.mos)), 0);
  const unavailable =
    factors.length === 0
      ? 'no factor varies in this design: every scenario has the same network settings'
      : !section
        ? NEEDS_RERUN
        : points === 0
          ? `no rating at any level of ${factorTitle(doc, factor)} with ${held}`
          : null;
  const notes = factorNotes(section, [factor]);
  return (
    <Figure
      id="mos-by-factor"
      reference="Explore"
      title="MOS against one factor"
      caption={
        <>
          MOS with 95 % confidence intervals at each tested level of the chosen factor, for {gamesText(keys)}, {held} ({group}). A
          level without ratings under this rule is left out.
        </>
      }
      points={points}
      csv={{ header, rows }}
      png={png}
      filename={`mos-by-${factor || 'factor'}-${mode}`}
      unavailable={unavailable}
      note={[...notes, legend ?? ''].filter(Boolean).join(' ') || undefined}
      warnings={warningsFor(doc, FIGURE_WHERE.factorMos)}
      controls={
        factors.length > 0 &&
        section && (
          <>
            <FactorSelect doc={doc} label="Factor" value={factor} onChange={setFactor} />
            <HoldSelect value={mode} onChange={setMode} />
          </>
        )
      }
      table={<DataTable label="MOS against one factor" header={header} rows={rows} />}
    >
      <div className="chart-box">
        <ChartCanvas ref={ref as never} type="line" data={chartData} options={options} role="img" aria-label={`Line chart: MOS against ${factor ? factorTitle(doc, factor) : 'a factor'}, ${points} points`} />
      </div>
    </Figure>
  );
}
