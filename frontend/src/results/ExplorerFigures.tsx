/**
 * The figures of the results explorer, each behind its own error boundary. Two layouts:
 * "the table 4.1 layout" (the dissertation's figures 4.2–4.10, offered when the design is
 * table 4.1) and the generic one (groups, factors and scenarios from the document).
 */
import { useId, useState } from 'react';
import type { ReactNode } from 'react';

import type { AnalysisDoc } from './analysisTypes';
import {
  CdfFigure,
  HeatmapFigure,
  InterRaterFigure,
  IntraRaterFigure,
  MleQualityFigure,
  MosOverFactorFigure,
  MosPerScenarioFigure,
  RaterBiasFigure,
  SosFigure,
  ThresholdsFigure,
  TreeFigure,
  WeightsFigure,
} from './charts/figures';
import { FactorHeatmapFigure } from './charts/FactorHeatmapFigure';
import { FactorMosFigure } from './charts/FactorMosFigure';
import { FigureBoundary } from './charts/FigureBoundary';
import { ParticipantsFigure } from './charts/ParticipantsFigure';
import { ScreeningFigure } from './charts/ScreeningFigure';
import { MarginalsView } from './marginals/MarginalsFigure';
import { baselineScenario, isTable41 } from './factors';
import { fromTidy } from './participantRatings';
import type { ItemRating } from './participantRatings';
import type { TidyRating } from './transforms';

export interface ExplorerProps {
  docs: { all: AnalysisDoc | null; reliable: AnalysisDoc | null };
  primary: AnalysisDoc;
  games: string[];
  scenarios: string[];
  group: string;
  paces: string[] | null;
  ratings: TidyRating[] | null;
  /** Every item's value as written, training marked (the participants table); else read from `ratings`. */
  itemRatings?: ItemRating[] | null;
  ratingsError: string | null;
  reliableSet: ReadonlySet<string> | null;
}

function Safe({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <FigureBoundary id={id} title={title}>
      {children}
    </FigureBoundary>
  );
}

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section aria-labelledby={id}>
      <h2 id={id} className="explorer__section">
        {title}
      </h2>
      {children}
    </section>
  );
}

/** Two scenarios to compare (rating pairs, CDFs): by default the first two besides the baseline. */
function usePair(doc: AnalysisDoc, scenarios: string[]): [[string, string], (p: [string, string]) => void] {
  const base = baselineScenario(doc);
  const others = scenarios.filter((s) => s !== base);
  const fallback: [string, string] = [others[0] ?? scenarios[0] ?? '', others[1] ?? scenarios[1] ?? ''];
  const [pair, setPair] = useState<[string, string] | null>(null);
  const valid = pair && scenarios.includes(pair[0]) && scenarios.includes(pair[1]) ? pair : fallback;
  return [valid, setPair];
}

function PairPicker({ scenarios, pair, onChange }: { scenarios: string[]; pair: [string, string]; onChange: (p: [string, string]) => void }) {
  const a = useId();
  const b = useId();
  return (
    <div className="explorer__toolbar" role="group" aria-label="Scenarios to compare">
      <div className="field">
        <label htmlFor={a}>First scenario</label>
        <select id={a} value={pair[0]} onChange={(e) => { onChange([e.target.value, pair[1]]); }}>
          {scenarios.map((s) => <option key={s}>{s}</option>)}
        </select>
      </div>
      <div className="field">
        <label htmlFor={b}>Second scenario</label>
        <select id={b} value={pair[1]} onChange={(e) => { onChange([pair[0], e.target.value]); }}>
          {scenarios.map((s) => <option key={s}>{s}</option>)}
        </select>
      </div>
    </div>
  );
}

export function ExplorerFigures(props: ExplorerProps) {
  const { docs, primary, games, scenarios, group, paces, ratings, ratingsError, reliableSet } = props;
  const table41 = isTable41(primary);
  const [layout, setLayout] = useState<'table41' | 'generic'>('table41');
  const showTable41 = table41 && layout === 'table41';
  const [pair, setPair] = usePair(primary, scenarios);
  const layoutId = useId();
  const rater = docs.all ?? primary;
  const ratingsStatus = <p className="status">{ratingsError ? `The ratings could not be loaded: ${ratingsError}` : 'Loading the ratings…'}</p>;
  return (
    <>
      {table41 && (
        <div className="field explorer__layout">
          <label htmlFor={layoutId}>Layout</label>
          <select id={layoutId} value={layout} onChange={(e) => { setLayout(e.target.value === 'generic' ? 'generic' : 'table41'); }}>
            <option value="table41">The table 4.1 layout (dissertation figures 4.2–4.10)</option>
            <option value="generic">Generic (any design)</option>
          </select>
        </div>
      )}
      <Section id="sec-mos" title="Quality per scenario">
        <Safe id="mos-per-scenario" title="MOS per scenario and game">
          <MosPerScenarioFigure doc={primary} games={games} scenarios={scenarios} group={group} />
        </Safe>
        {showTable41 ? (
          <>
            <div className="figure-grid">
              <Safe id="mos-over-delay" title="MOS over delay">
                <MosOverFactorFigure docs={docs} games={games} group="delay_only" />
              </Safe>
              <Safe id="mos-over-loss" title="MOS over packet loss">
                <MosOverFactorFigure docs={docs} games={games} group="loss_only" />
              </Safe>
            </div>
            <div className="figure-grid">
              <Safe id="m1-m2-heatmap" title="M1 vs M2">
                {ratings ? <HeatmapFigure ratings={ratings} games={games} raters={reliableSet} group={group} /> : ratingsStatus}
              </Safe>
              <Safe id="a1-a2-cdf" title="CDFs of A1 vs A2">
                <CdfFigure doc={primary} games={games} group={group} />
              </Safe>
            </div>
          </>
        ) : (
          <>
            <PairPicker scenarios={scenarios} pair={pair} onChange={setPair} />
            <div className="figure-grid">
              <Safe id="rating-pairs" title="Rating pairs">
                {ratings ? <HeatmapFigure ratings={ratings} games={games} raters={reliableSet} group={group} pair={pair} /> : ratingsStatus}
              </Safe>
              <Safe id="scenario-cdf" title="Rating CDFs">
                <CdfFigure doc={primary} games={games} group={group} pair={pair} />
              </Safe>
            </div>
          </>
        )}
      </Section>
      <Section id="sec-factors" title="Quality by factor">
        <div className="figure-grid">
          <Safe id="mos-by-factor" title="MOS against one factor">
            <FactorMosFigure doc={primary} games={games} group={group} />
          </Safe>
          <Safe id="factor-heatmap" title="MOS over two factors">
            <FactorHeatmapFigure doc={primary} games={games} group={group} />
          </Safe>
        </div>
        <Safe id="marginals" title="MOS by factor level (marginal)">
          <MarginalsView doc={primary} games={games} />
        </Safe>
      </Section>
      <Section id="sec-reliability" title="Raters">
        <div className="figure-grid">
          <Safe id="intra-rater-cdf" title="Intra-rater reliability">
            <IntraRaterFigure doc={rater} />
          </Safe>
          <Safe id="inter-rater" title="Inter-rater agreement">
            <InterRaterFigure doc={rater} games={games} />
          </Safe>
        </div>
        <Safe id="screening" title="Rater screening">
          <ScreeningFigure doc={rater} />
        </Safe>
        <Safe id="sos" title="SOS over MOS">
          <SosFigure doc={primary} games={games} group={group} />
        </Safe>
        <Safe id="participants" title="Participants">
          <ParticipantsFigure doc={rater} ratings={props.itemRatings ?? (ratings && fromTidy(ratings))} scenarios={scenarios} ratingsError={ratingsError} />
        </Safe>
      </Section>
      <Section id="sec-subject-model" title="Subject model (raters' bias and inconsistency)">
        <Safe id="rater-bias" title="Raters: bias vs inconsistency">
          <RaterBiasFigure doc={rater} />
        </Safe>
        <Safe id="mle-quality" title="MLE quality beside MOS per condition">
          <MleQualityFigure doc={rater} games={games} scenarios={scenarios} />
        </Safe>
      </Section>
      <Section id="sec-kpi" title="Key quality indicators">
        <Safe id="weights" title="Weights of the factors">
          <WeightsFigure doc={primary} />
        </Safe>
        <Safe id="decision-tree" title="Decision tree">
          <TreeFigure doc={primary} />
        </Safe>
        <Safe id="thresholds" title="KPI thresholds">
          <ThresholdsFigure doc={primary} paces={paces} />
        </Safe>
      </Section>
    </>
  );
}
