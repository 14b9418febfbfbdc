/**
 * A real analysis document (the sections the subject-model figures read), not hand-made:
 * `qoe_analysis.report.analyze` on the soccer ratings of raters P02 P03 P06 P10 P13 P16 P17
 * P21 P22 P25 P37 P48 of fixtures/synthetic/dissertation_shape/ratings.csv plus a rater P99
 * with one rating (the first soccer B row, rater/session renamed), then
 * meta, notes, conditions, reliability.screening.p913, reliability.rater_status and
 * subject_model kept as they came. What it holds:
 *
 * - subject model `not_identifiable`: P99 rated one condition only; P06 and P25 are fitted
 *   exactly (υ → 0, the unbounded-likelihood case); the other 10 raters are fitted;
 * - P.913: P16 and P37 unreliable (pass 1), P48 (constant ratings) and P99 not assessable;
 * - 10 conditions (soccer × the 10 scenarios of table 4.1), every one with a quality.
 */
import type { AnalysisDoc } from './analysisTypes';
import { emptyAnalysisDoc } from './emptyDoc';
import real from './subjectModelDoc.json';

export function subjectModelDoc(): AnalysisDoc {
  const base = emptyAnalysisDoc({});
  // the JSON is the backend's output: typed by the document's contract, not by inference
  const sections = JSON.parse(JSON.stringify(real)) as Pick<AnalysisDoc, 'meta' | 'notes' | 'conditions' | 'subject_model'> & {
    reliability: Pick<AnalysisDoc['reliability'], 'screening' | 'rater_status'>;
  };
  return { ...base, ...sections, reliability: { ...base.reliability, ...sections.reliability } };
}
