import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

import { parseParticipantLink } from '../shared/participantLink';
import { ParticipantApp } from './ParticipantApp';
import { PreviewApp } from './preview/PreviewApp';
import { parsePreviewPath } from './preview/previewLink';
import './participant.css';
import './preview/preview.css';

const container = document.getElementById('root');
if (!container) throw new Error('participant.html has no #root element');

const previewStudy = parsePreviewPath(window.location.pathname);
createRoot(container).render(
  <StrictMode>
    {previewStudy !== null ? (
      <PreviewApp studyId={previewStudy} />
    ) : (
      <ParticipantApp link={parseParticipantLink(window.location.pathname, window.location.hash)} />
    )}
  </StrictMode>,
);
