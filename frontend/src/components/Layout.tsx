import { NavLink, Outlet, useNavigate } from 'react-router';

import { useAuth } from '../console/AuthContext';
import { useAction } from '../console/hooks';
import { ActionError } from '../console/ui';

/** Page frame shared by every route: header with navigation and the researcher's account, main landmark. */
export function Layout() {
  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="app-header">
        <div className="app-header__inner">
          <h1 className="app-header__title">
            <NavLink to="/">QoE Lab</NavLink>
          </h1>
          <p className="app-header__tagline">
            Subjective quality-of-experience studies of cloud gaming under controlled network impairments.
          </p>
          <nav className="app-nav" aria-label="Main">
            <NavLink to="/" end>
              Overview
            </NavLink>
            <NavLink to="/console" end>
              Studies
            </NavLink>
            <NavLink to="/console/stations">Stations</NavLink>
            <NavLink to="/console/steering">Steering</NavLink>
          </nav>
          <Account />
        </div>
      </header>
      <main id="main" className="app-main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}

/** "Signed in as …" with "Sign out", or a link to the sign-in page. */
function Account() {
  const { state, signOut } = useAuth();
  const navigate = useNavigate();
  const action = useAction();
  if (state.status === 'checking' || state.status === 'error') return null;
  if (state.status !== 'in') {
    return (
      <div className="app-account">
        <NavLink to="/login">Researcher sign-in</NavLink>
      </div>
    );
  }
  const leave = async () => {
    const done = await action.run(async () => {
      await signOut();
      return true;
    });
    if (done) void navigate('/login', { replace: true });
  };
  return (
    <div className="app-account" aria-label="Account" role="group">
      <span>
        Signed in as <strong data-testid="signed-in-user">{state.user.username}</strong>
      </span>
      <button type="button" className="button button--small" disabled={action.busy} onClick={() => void leave()}>
        {action.busy ? 'Signing out…' : 'Sign out'}
      </button>
      <ActionError error={action.error} prefix="Could not sign out" />
    </div>
  );
}
