/** The size of a design in words: its number of scenarios and the session length it implies. */
export function sessionLength(count: number, minutes: number | null | undefined): string {
  const scenarios = count === 1 ? '1 scenario' : `${count} scenarios`;
  if (minutes === null || minutes === undefined || !Number.isFinite(minutes)) return `${scenarios}.`;
  // The API's estimate (free play, every scenario with its rating, the retest round) in whole minutes.
  return `${scenarios}; one session takes about ${Math.round(minutes)} min.`;
}
