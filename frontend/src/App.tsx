import { Route, Routes } from 'react-router';

import { Layout } from './components/Layout';
import { NotFoundPage } from './pages/NotFoundPage';
import { StudyOverviewPage } from './pages/StudyOverviewPage';

/**
 * App routes. Django returns dist/index.html for each of these paths, so a route added here
 * must also be known to the backend's catch-all. Planned: /console, /participant/:token,
 * /results/:studyId.
 */
export function App() {
  return (
    <Routes>
      <Route element={<Layout />}>
        <Route index element={<StudyOverviewPage />} />
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}
