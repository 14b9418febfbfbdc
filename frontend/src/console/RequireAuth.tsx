import { useEffect, useState } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';

import { ErrorMessage, Loading } from '../components/StatusMessage';
import { isSignedIn } from './auth';

type Check = { status: 'checking' } | { status: 'in' } | { status: 'out' } | { status: 'error'; error: Error };

/** Console routes: shown to a signed-in researcher, otherwise a redirect to /login. */
export function RequireAuth() {
  const location = useLocation();
  const [check, setCheck] = useState<Check>({ status: 'checking' });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let cancelled = false;
    isSignedIn().then(
      (signedIn) => {
        if (!cancelled) setCheck({ status: signedIn ? 'in' : 'out' });
      },
      (error: unknown) => {
        if (!cancelled) setCheck({ status: 'error', error: error instanceof Error ? error : new Error(String(error)) });
      },
    );
    return () => {
      cancelled = true;
    };
  }, [attempt]);

  if (check.status === 'checking') return <Loading>Checking your sign-in…</Loading>;
  if (check.status === 'error') {
    return (
      <ErrorMessage
        title="Could not reach the server"
        error={check.error}
        onRetry={() => {
          setAttempt((n) => n + 1);
        }}
      />
    );
  }
  if (check.status === 'out') {
    const next = `${location.pathname}${location.search}`;
    return <Navigate to={`/login?next=${encodeURIComponent(next)}`} replace />;
  }
  return <Outlet />;
}
