/**
 * How sure the decision tree is (`tree` of the analysis document, issue 31): its
 * cross-validated accuracy beside the accuracy of always predicting the majority class and
 * beside its accuracy on the training rows, its size, its minimum leaf and how often its
 * root split recurs across folds and seeds. Documents stored before issue 31 have only the
 * training accuracy: the reader then says that the tree was not cross-validated.
 */
import type * as Gen from './analysisDoc.gen';
import type { AnalysisDoc } from './analysisTypes';

/** A root-split feature with the share of CV folds and of other seeds whose tree splits on it first. */
export type SplitRecurrence = Gen.SplitRecurrence;

export type Verdict = 'beats_majority' | 'not_above_majority' | 'not_cross_validated';

export interface TreeEvidence {
  training: number | null;
  cv: number | null;
  cvSd: number | null;
  folds: number | null;
  cvNote: string | null;
  majority: number | null;
  majorityClass: string | null;
  minLeaf: number | null;
  leaves: number | null;
  recurrence: SplitRecurrence[];
  verdict: Verdict;
  /** One sentence on what the accuracy means; names the majority rule when the tree does not beat it. */
  sentence: string;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

function recurrenceOf(v: unknown): SplitRecurrence[] {
  if (!Array.isArray(v)) return [];
  return v.flatMap((x: unknown) => {
    if (typeof x !== 'object' || x === null) return [];
    const r = x as Record<string, unknown>;
    return typeof r.feature === 'string' ? [{ feature: r.feature, share_folds: num(r.share_folds), share_seeds: num(r.share_seeds) }] : [];
  });
}

/** A share as a percentage ("78.2 %"); "—" without a value. */
export function pct(v: number | null, digits = 1): string {
  return v === null ? '—' : `${(v * 100).toFixed(digits)} %`;
}

const LABEL: Record<string, string> = { acceptable: 'acceptable', not_acceptable: 'not acceptable' };

/**
 * The tree's evidence. Verdict: "not above majority" when the cross-validated accuracy is
 * not above the majority-class accuracy (the tree then does no better than always
 * predicting the majority class); "not cross-validated" when the document has no CV accuracy.
 */
export function treeEvidence(doc: AnalysisDoc): TreeEvidence {
  const t = doc.tree;
  const cv = num(t.cv_accuracy);
  const majority = num(t.majority_accuracy);
  const majorityClass = text(t.majority_class);
  const leaves = num(t.n_leaves);
  const training = num(doc.tree.training_accuracy);
  const cvNote = text(t.cv_note);
  const verdict: Verdict = cv === null ? 'not_cross_validated' : majority !== null && cv <= majority ? 'not_above_majority' : 'beats_majority';
  const always = `always predicting “${LABEL[majorityClass ?? ''] ?? majorityClass ?? 'the majority class'}”`;
  const sentence =
    verdict === 'not_cross_validated'
      ? `The tree was not cross-validated${cvNote ? ` (${cvNote})` : ' (an analysis stored before cross-validation: run it again)'}; its training accuracy ${pct(training)} overstates how well it predicts new ratings.`
      : verdict === 'not_above_majority'
        ? `The tree does not beat ${always}: cross-validated accuracy ${pct(cv)} against ${pct(majority)} for the majority rule. Its splits and thresholds are not supported by these data.`
        : `Cross-validated accuracy ${pct(cv)} against ${pct(majority)} for ${always}${training !== null ? ` (training accuracy ${pct(training)})` : ''}.`;
  return {
    training,
    cv,
    cvSd: num(t.cv_accuracy_sd),
    folds: num(t.cv_folds),
    cvNote,
    majority,
    majorityClass,
    minLeaf: num(t.min_leaf),
    leaves,
    recurrence: recurrenceOf(t.top_split_recurrence),
    verdict,
    sentence,
  };
}
