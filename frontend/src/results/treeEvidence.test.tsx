import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import type { AnalysisDoc } from './analysisTypes';
import { TreeFigure } from './charts/TreeFigure';
import { testDoc } from './testDoc';
import { pct, treeEvidence } from './treeEvidence';

function withEvidence(cv: number | null, majority: number | null, extra: Partial<AnalysisDoc['tree']> = {}): AnalysisDoc {
  const doc = testDoc();
  doc.tree = {
    ...doc.tree,
    cv_accuracy: cv,
    cv_accuracy_sd: cv === null ? null : 0.04,
    cv_folds: cv === null ? null : 5,
    cv_note: cv === null ? 'a class has fewer than 2 ratings' : null,
    majority_accuracy: majority,
    majority_class: 'acceptable',
    min_leaf: 2,
    n_leaves: 3,
    top_split_recurrence: [
      { feature: 'ds_loss_pct', share_folds: 0.8, share_seeds: 0.9 },
      { feature: 'game_pace', share_folds: 0.2, share_seeds: 0.1 },
    ],
    ...extra,
  };
  return doc;
}

describe('how sure the tree is', () => {
  it('beats the majority rule when its cross-validated accuracy is above it', () => {
    const e = treeEvidence(withEvidence(0.77, 0.68));
    expect(e.verdict).toBe('beats_majority');
    expect(e.sentence).toBe('Cross-validated accuracy 77.0 % against 68.0 % for always predicting “acceptable” (training accuracy 90.0 %).');
    expect([e.cvSd, e.folds, e.minLeaf, e.leaves]).toEqual([0.04, 5, 2, 3]);
  });

  it('says the tree does not beat always predicting the majority when CV accuracy is not above it (equal included)', () => {
    for (const cv of [0.6, 0.68]) {
      const e = treeEvidence(withEvidence(cv, 0.68));
      expect(e.verdict).toBe('not_above_majority');
      expect(e.sentence).toMatch(/^The tree does not beat always predicting “acceptable”/);
    }
  });

  it('says the tree was not cross-validated, with the analysis’ note or for an older document', () => {
    expect(treeEvidence(withEvidence(null, 0.7)).sentence).toMatch(/not cross-validated \(a class has fewer than 2 ratings\)/);
    const old = treeEvidence(testDoc());
    expect(old.verdict).toBe('not_cross_validated');
    expect(old.sentence).toMatch(/stored before cross-validation/);
    expect(old.recurrence).toEqual([]);
  });

  it('formats shares', () => {
    expect(pct(0.7781)).toBe('77.8 %');
    expect(pct(null)).toBe('—');
  });

  it('shows CV ± sd, majority, training accuracy, min_leaf, leaves and the root-split recurrence beside the tree', () => {
    const doc = withEvidence(0.6, 0.68);
    doc.warnings = [
      { code: 'model_weak', where: 'tree', message: 'cv 0.60 <= majority 0.68' },
      { code: 'thin_evidence', where: 'conditions', message: 'not the tree’s' },
    ];
    const { container } = render(<TreeFigure doc={doc} />);
    expect(container.querySelector('[data-tree-verdict]')).toHaveAttribute('data-tree-verdict', 'not_above_majority');
    const table = screen.getByRole('table', { name: 'How sure the tree is' });
    const cells = within(table)
      .getAllByRole('row')
      .map((r) => r.textContent);
    expect(cells).toEqual([
      'Cross-validated accuracy60.0 % ± 4.0 % (5-fold)',
      'Always predicting the majority class68.0 % (“acceptable”)',
      'Accuracy on the training rows90.0 %',
      'Minimum leaf size2',
      'Leaves3',
    ]);
    const recurrence = screen.getByRole('table', { name: 'How often the root split recurs' });
    expect(within(recurrence).getAllByRole('row')[1]).toHaveTextContent('Downstream packet loss80 %90 %');
    const notes = screen.getByRole('note', { name: /Warnings on Decision tree/ });
    expect(within(notes).getAllByRole('listitem').map((li) => li.getAttribute('data-warning'))).toEqual(['model_weak']);
  });
});
