import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

import { parseParticipantLink } from '../shared/participantLink';
import { ParticipantApp } from './ParticipantApp';
import './participant.css';

const container = document.getElementById('root');
if (!container) throw new Error('participant.html has no #root element');

createRoot(container).render(
  <StrictMode>
    <ParticipantApp link={parseParticipantLink(window.location.pathname, window.location.hash)} />
  </StrictMode>,
);
