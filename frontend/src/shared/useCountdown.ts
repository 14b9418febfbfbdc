import { useEffect, useState } from 'react';

/**
 * Seconds left, counted down locally between two polls. The server's value is the truth:
 * each poll restarts the count from it, so a reload or a slow device never drifts.
 */
export function useCountdown(secondsAtReceipt: number | null, receivedAt: number): number | null {
  const [now, setNow] = useState(() => Date.now());
  const running = secondsAtReceipt !== null && secondsAtReceipt > 0;
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => {
      setNow(Date.now());
    }, 250);
    return () => {
      clearInterval(timer);
    };
  }, [running, receivedAt]);
  if (secondsAtReceipt === null) return null;
  const elapsed = Math.max(0, (Math.max(now, receivedAt) - receivedAt) / 1000);
  return Math.max(0, secondsAtReceipt - elapsed);
}
