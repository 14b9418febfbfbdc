import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { dryRunCounts, StudyDryRunBanner } from './provenance';

describe('the study dry-run banner', () => {
  it('counts the dry-run ratings of all ratings', () => {
    expect(dryRunCounts({ netlink: 30, 'dry-run': 10, import: 5 })).toEqual({ dryRun: 10, total: 45 });
    expect(dryRunCounts({})).toEqual({ dryRun: 0, total: 0 });
    expect(dryRunCounts(undefined)).toEqual({ dryRun: 0, total: 0 });
  });

  it('says how many ratings were taken on a dry-run agent', () => {
    render(<StudyDryRunBanner study={{ ratings_by_backend: { netlink: 30, 'dry-run': 10 }, rehearsal: true }} />);
    const banner = screen.getByTestId('study-dry-run-banner');
    expect(banner).toHaveTextContent('10 of 40 ratings were taken on a dry-run agent');
    expect(banner).toHaveTextContent('The study is marked as a rehearsal.');
    // the same ratings as the results' "40 ratings": training counts in neither (issue 35)
    expect(banner).toHaveTextContent('Training ratings are not counted (they count nowhere in the analysis).');
  });

  it('stays away when no rating was dry-run', () => {
    render(<StudyDryRunBanner study={{ ratings_by_backend: { netlink: 3, import: 2 }, rehearsal: false }} />);
    expect(screen.queryByTestId('study-dry-run-banner')).toBeNull();
  });
});
