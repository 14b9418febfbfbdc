import { NavLink, Outlet } from 'react-router';

/** Page frame shared by every route: header with navigation, main landmark. */
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
          </nav>
        </div>
      </header>
      <main id="main" className="app-main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
