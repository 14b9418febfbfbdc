import { fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';

import { exampleStudy } from '../../test/fixtures';
import { MAX_TRAPS, QualityControlFields, qcBody, qcDraft } from './QualityControlFields';
import type { QualityControlDraft } from './QualityControlFields';

function Harness({ onBody }: { onBody: (body: Record<string, unknown>) => void }) {
  const [qc, setQc] = useState<QualityControlDraft>(qcDraft(undefined));
  return (
    <QualityControlFields
      qc={qc}
      scenarios={exampleStudy.scenarios}
      firstItem={exampleStudy.rating_items[0]}
      err={(path) => (path === '' ? 'traps[0].value: 9 is not an integer from 1 to 5 (acr5)' : undefined)}
      onChange={(next) => {
        setQc(next);
        onBody(qcBody(next));
      }}
    />
  );
}

describe('QualityControlFields (ITU-T P.808 checks, issue 35)', () => {
  it("adds a trap asking for 'Poor' at a random place; its instruction follows the value", () => {
    let body: Record<string, unknown> = {};
    render(<Harness onBody={(b) => (body = b)} />);
    fireEvent.click(screen.getByRole('button', { name: 'Add a trapping item' }));
    expect(body).toEqual({
      traps: [{ after: null, value: 2, text: { en: "Please select 'Poor' for this question.", de: "Bitte wählen Sie bei dieser Frage 'Dürftig'." } }],
      hidden_reference: null,
    });
    fireEvent.change(screen.getByLabelText('Trap 1: value to select'), { target: { value: '4' } });
    fireEvent.change(screen.getByLabelText('Trap 1: after test scenario'), { target: { value: '3' } });
    expect(body.traps).toEqual([{ after: 3, value: 4, text: { en: "Please select 'Good' for this question.", de: "Bitte wählen Sie bei dieser Frage 'Gut'." } }]);
  });

  it('offers at most three traps, a hidden reference of the baseline or a chosen scenario, and shows the API error', () => {
    let body: Record<string, unknown> = {};
    render(<Harness onBody={(b) => (body = b)} />);
    const add = screen.getByRole('button', { name: 'Add a trapping item' });
    for (let i = 0; i < MAX_TRAPS; i += 1) fireEvent.click(add);
    expect(add).toBeDisabled();
    fireEvent.click(screen.getByLabelText(/Hidden\s+reference/));
    expect(body.hidden_reference).toEqual({ scenario: null });
    fireEvent.change(screen.getByLabelText('Repeated scenario'), { target: { value: 'D1' } });
    expect(body.hidden_reference).toEqual({ scenario: 'D1' });
    expect(screen.getByRole('alert')).toHaveTextContent('traps[0].value: 9 is not an integer');
  });

  it('reads the stored settings back (a trap at a chosen place)', () => {
    const draft = qcDraft({ traps: [{ after: 2, value: 1, text: { en: 'Pick Bad', de: 'Wähle Schlecht' } }], hidden_reference: { scenario: null } });
    expect(draft).toEqual({ traps: [{ after: '2', value: '1', en: 'Pick Bad', de: 'Wähle Schlecht' }], hiddenReference: true, reference: '' });
    expect(qcBody(draft)).toEqual({ traps: [{ after: 2, value: 1, text: { en: 'Pick Bad', de: 'Wähle Schlecht' } }], hidden_reference: { scenario: null } });
  });
});
