/**
 * The planning hint of the results page (`doc.planning`, issue 31): how many raters per
 * condition the design needs for a MOS interval of ±half-width and for the screening to
 * be assessable, beside the median it has now. The numbers are the analysis' own
 * (smallest n with t(0.975, n − 1) · sd / √n ≤ half-width); nothing is computed here.
 */
import { useId } from 'react';

import type { AnalysisDoc } from './analysisTypes';
import { docPlanning, intraNeed } from './evidence';
import type { Planning } from './evidence';

const n = (v: number | null) => (v === null ? '—' : String(v));

/** The hint's lines: [what, needed, now]; pure, for the tests. */
export function planningLines(p: Planning): { what: string; need: string; now: string; short: boolean }[] {
  const now = p.median_raters_per_condition;
  const sd = `SD ${p.sd_assumed.toFixed(2)}, ${p.sd_source}`;
  const interval = p.raters_per_condition_for_interval;
  return [
    {
      what: `MOS within ±${p.half_width} (${Math.round(p.confidence * 100)} % CI, ${sd})`,
      need: `${interval} raters per condition`,
      now: `${n(now)} (median)`,
      short: now !== null && now < interval,
    },
    {
      what: 'ITU-T P.913 screening assessable',
      need: `${p.raters_per_condition_for_p913} raters per condition`,
      now: `${n(now)} (median)`,
      short: now !== null && now < p.raters_per_condition_for_p913,
    },
    {
      what: 'Intra-rater rule assessable',
      need: `${intraNeed(p)} per rater and scenario group`,
      now: '',
      short: false,
    },
  ];
}

export function PlanningHint({ doc }: { doc: AnalysisDoc | null }) {
  const id = useId();
  const p = docPlanning(doc);
  if (!p) return null;
  const lines = planningLines(p);
  const short = lines.some((l) => l.short);
  return (
    <section className="planning card" aria-labelledby={id} data-planning={short ? 'short' : 'enough'}>
      <h2 id={id} className="planning__title">
        Planning: raters per condition
      </h2>
      <p>
        {short
          ? `This study has a median of ${n(p.median_raters_per_condition)} raters per condition: fewer than its figures need (below).`
          : `This study has a median of ${n(p.median_raters_per_condition)} raters per condition.`}
      </p>
      <div className="table-wrap">
        <table className="data-table" aria-label="Raters per condition needed">
          <thead>
            <tr>
              <th scope="col">For</th>
              <th scope="col">Needs</th>
              <th scope="col">Now</th>
            </tr>
          </thead>
          <tbody>
            {lines.map((l) => (
              <tr key={l.what} data-short={l.short ? 'true' : undefined}>
                <th scope="row">{l.what}</th>
                <td>{l.need}</td>
                <td>
                  {l.now}
                  {l.short ? ' — too few' : ''}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {p.note && <p className="muted">{p.note}</p>}
    </section>
  );
}
