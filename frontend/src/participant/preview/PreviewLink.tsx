/** The study page's "Preview participant screens" button (opens the participant entry). */
import { previewPath } from './previewLink';

export function PreviewLink({ studyId }: { studyId: number }) {
  // A plain link: the preview is the participant entry (participant.html), not a console route.
  return (
    <p>
      <a className="button" href={previewPath(studyId)} data-testid="preview-link">
        Preview participant screens
      </a>{' '}
      <span className="muted">Every screen a participant sees, step by step; nothing is stored.</span>
    </p>
  );
}
