import { Link, Outlet } from 'react-router';

/** Page frame shared by every route: header, main landmark, footer. */
export function Layout() {
  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="app-header">
        <div className="app-header__inner">
          <h1 className="app-header__title">
            <Link to="/">QoE Lab</Link>
          </h1>
          <p className="app-header__tagline">
            Subjective quality-of-experience studies of cloud gaming under controlled network impairments.
          </p>
        </div>
      </header>
      <main id="main" className="app-main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
