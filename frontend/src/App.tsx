import { QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { Route, Routes } from 'react-router';

import { createQueryClient } from './api/queries';
import { Layout } from './components/Layout';
import { Loading } from './components/StatusMessage';
import { AuthProvider } from './console/AuthContext';
import { RequireAuth } from './console/RequireAuth';
import { LoginPage } from './console/LoginPage';
import { ProgressPage } from './console/ProgressPage';
import { SessionConsolePage } from './console/SessionConsolePage';
import { SessionsPage } from './console/SessionsPage';
import { StationsPage } from './console/StationsPage';
import { StudiesPage } from './console/StudiesPage';
import { StudyEditorPage } from './console/StudyEditorPage';
import { ExportsPage } from './console/exports/ExportsPage';
import { NotFoundPage } from './pages/NotFoundPage';
import { StudyOverviewPage } from './pages/StudyOverviewPage';

// The results explorer carries Chart.js: it loads only when a researcher opens it.
const ResultsPage = lazy(() => import('./results/ResultsPage'));
const PolicyPage = lazy(() => import('./results/PolicyPage'));
// The dataset import (column mapping) is opened rarely: its own chunk.
const DatasetImportPage = lazy(() => import('./console/datasetImport/DatasetImportPage'));
// The steering console draws a Chart.js chart: its own chunk too.
const SteeringPage = lazy(() => import('./console/steering/SteeringPage'));

/**
 * Routes of the researcher entry (index.html). Django returns index.html for every path
 * except /participant/…, which gets the separate participant entry (participant.html).
 * Each App owns its query cache (one per page load; a fresh one per test).
 */
export function App() {
  const [queryClient] = useState(createQueryClient);
  return (
    <QueryClientProvider client={queryClient}>
      <AuthProvider>
        <Routes>
          <Route element={<Layout />}>
            <Route index element={<StudyOverviewPage />} />
            <Route path="login" element={<LoginPage />} />
            <Route path="console" element={<RequireAuth />}>
              <Route index element={<StudiesPage />} />
              <Route path="stations" element={<StationsPage />} />
              <Route
                path="steering"
                element={
                  <Suspense fallback={<Loading>Loading the steering console…</Loading>}>
                    <SteeringPage />
                  </Suspense>
                }
              />
              <Route
                path="datasets/import"
                element={
                  <Suspense fallback={<Loading>Loading the dataset import…</Loading>}>
                    <DatasetImportPage />
                  </Suspense>
                }
              />
              <Route path="studies/:studyId" element={<StudyEditorPage />} />
              <Route path="studies/:studyId/sessions" element={<SessionsPage />} />
              <Route path="studies/:studyId/progress" element={<ProgressPage />} />
              <Route path="studies/:studyId/exports" element={<ExportsPage />} />
              <Route
                path="studies/:studyId/results"
                element={
                  <Suspense fallback={<Loading>Loading the results explorer…</Loading>}>
                    <ResultsPage />
                  </Suspense>
                }
              />
              <Route
                path="studies/:studyId/policy"
                element={
                  <Suspense fallback={<Loading>Loading the policy…</Loading>}>
                    <PolicyPage />
                  </Suspense>
                }
              />
              <Route path="sessions/:sessionId" element={<SessionConsolePage />} />
            </Route>
            <Route path="*" element={<NotFoundPage />} />
          </Route>
        </Routes>
      </AuthProvider>
    </QueryClientProvider>
  );
}
