import { useEffect, useId, useState } from 'react';
import type { SyntheticEvent } from 'react';
import { Navigate, useSearchParams } from 'react-router';

import { login } from './auth';
import { useAuth } from './AuthContext';

/** `/login` — researcher sign-in (any QoE Lab account; staff status is not needed). */
export function LoginPage() {
  const [params] = useSearchParams();
  const { state, check, signedIn } = useAuth();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const userId = useId();
  const passId = useId();
  const errorId = useId();
  const next = params.get('next');
  const target = next?.startsWith('/') && !next.startsWith('//') ? next : '/console';

  // Already signed in (e.g. the link was bookmarked): go straight on.
  useEffect(() => {
    check();
  }, [check]);

  const submit = async (event: SyntheticEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const outcome = await login(username, password);
    setBusy(false);
    // Signed in: the state change below sends the researcher on (see the Navigate).
    if (outcome.ok) signedIn(outcome.user);
    else setError(outcome.message);
  };

  if (state.status === 'in') return <Navigate to={target} replace />;

  return (
    <section className="login" aria-labelledby="login-title">
      <h2 id="login-title">Researcher sign-in</h2>
      <p className="muted">Participants do not sign in: they open the session link the researcher gives them.</p>
      <form className="form card" onSubmit={(event) => void submit(event)} noValidate>
        <div className="field">
          <label htmlFor={userId}>User name</label>
          <input
            id={userId}
            name="username"
            autoComplete="username"
            value={username}
            required
            onChange={(event) => {
              setUsername(event.target.value);
            }}
            aria-describedby={error ? errorId : undefined}
          />
        </div>
        <div className="field">
          <label htmlFor={passId}>Password</label>
          <input
            id={passId}
            name="password"
            type="password"
            autoComplete="current-password"
            value={password}
            required
            onChange={(event) => {
              setPassword(event.target.value);
            }}
          />
        </div>
        {error && (
          <p id={errorId} className="field-error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="button button--primary" disabled={busy || !username || !password}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p className="muted">
          Any QoE Lab account can sign in (staff status is not needed). The demo account is <code>researcher</code> /{' '}
          <code>qoelab-demo</code> (created by <code>make demo</code>).
        </p>
      </form>
    </section>
  );
}
