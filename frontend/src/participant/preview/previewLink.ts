/**
 * The preview's address: `/participant/preview/<study id>`. Django serves the participant
 * entry for every `/participant/…` path; the researcher's session cookie authenticates the
 * preview's one read (`GET /api/v1/studies/<id>/preview/`).
 */
export function previewPath(studyId: number): string {
  return `/participant/preview/${studyId}`;
}

/** The study id of a preview address, or null for any other path. */
export function parsePreviewPath(pathname: string): number | null {
  const match = /^\/(?:participant|p)\/preview\/(\d{1,18})\/?$/.exec(pathname);
  return match?.[1] ? Number(match[1]) : null;
}
