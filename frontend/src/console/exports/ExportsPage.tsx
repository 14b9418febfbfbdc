/** `/console/studies/:id/exports` — the study's Exports tab: every download in one place. */
import { Link } from 'react-router';

import { StudyTab } from '../StudyTab';
import { ExportsPanel } from './ExportsPanel';

export function ExportsPage() {
  return (
    <StudyTab
      after={(studyId) => (
        <p>
          <Link to={`/console/studies/${String(studyId)}/policy`}>Policy: KPI bounds per game class, raters and flow settings →</Link>
        </p>
      )}
    >
      {(study) => <ExportsPanel study={study} />}
    </StudyTab>
  );
}
