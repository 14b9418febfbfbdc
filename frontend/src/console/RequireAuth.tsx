import { useEffect } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';

import { ErrorMessage, Loading } from '../components/StatusMessage';
import { useAuth } from './AuthContext';

/** Console routes: shown to a signed-in researcher, otherwise a redirect to /login. */
export function RequireAuth() {
  const location = useLocation();
  const { state, check } = useAuth();

  // Entering the console asks the server again (a session may have ended meanwhile).
  useEffect(() => {
    check();
  }, [check]);

  if (state.status === 'unknown' || state.status === 'checking') return <Loading>Checking your sign-in…</Loading>;
  if (state.status === 'error') {
    return <ErrorMessage title="Could not reach the server" error={state.error} onRetry={check} />;
  }
  if (state.status === 'out') {
    const next = `${location.pathname}${location.search}`;
    return <Navigate to={`/login?next=${encodeURIComponent(next)}`} replace />;
  }
  return <Outlet />;
}
