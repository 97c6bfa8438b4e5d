import { createBrowserRouter, Navigate } from 'react-router';
import { RequireSession } from './components/RequireSession';
import { LoginPage } from './pages/auth/LoginPage';
import { SignupPage } from './pages/auth/SignupPage';
import { NotFoundPage } from './pages/NotFoundPage';
import { AnalyticsPage } from './pages/project/analytics/AnalyticsPage';
import { ApiDocsPage } from './pages/project/docs/ApiDocsPage';
import { DataPage } from './pages/project/data/DataPage';
import { GeneratePage } from './pages/project/generate/GeneratePage';
import { ProjectLayout } from './pages/project/ProjectLayout';
import { SchemaPage } from './pages/project/schema/SchemaPage';
import { SettingsPage } from './pages/project/settings/SettingsPage';
import { TestPage } from './pages/project/test/TestPage';
import { ProjectsPage } from './pages/projects/ProjectsPage';

export const router = createBrowserRouter([
  { path: '/login', element: <LoginPage /> },
  { path: '/signup', element: <SignupPage /> },
  {
    element: <RequireSession />,
    children: [
      { path: '/', element: <Navigate to="/projects" replace /> },
      { path: '/projects', element: <ProjectsPage /> },
      {
        path: '/projects/:projectId',
        element: <ProjectLayout />,
        children: [
          { index: true, element: <Navigate to="schema" replace /> },
          { path: 'schema', element: <SchemaPage /> },
          { path: 'generate', element: <GeneratePage /> },
          { path: 'docs', element: <ApiDocsPage /> },
          { path: 'test', element: <TestPage /> },
          { path: 'data', element: <DataPage /> },
          { path: 'data/:table', element: <DataPage /> },
          { path: 'analytics', element: <AnalyticsPage /> },
          { path: 'settings', element: <SettingsPage /> },
        ],
      },
    ],
  },
  { path: '*', element: <NotFoundPage /> },
]);
