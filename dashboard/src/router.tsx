import { lazy, Suspense } from 'react';
import { createBrowserRouter, Navigate } from 'react-router';
import { RequireSession } from './components/RequireSession';
import { ScrollReset } from './components/ScrollReset';
import { SecurityPage } from './pages/account/SecurityPage';
import { ForgotPasswordPage } from './pages/auth/ForgotPasswordPage';
import { LoginPage } from './pages/auth/LoginPage';
import { ResetPasswordPage as AccountResetPasswordPage } from './pages/auth/ResetPasswordPage';
import { VerifyEmailPage as AccountVerifyEmailPage } from './pages/auth/VerifyEmailPage';
import { SignupPage } from './pages/auth/SignupPage';
import { ConfirmEmailChangePage } from './pages/enduser/ConfirmEmailChangePage';
import { ResetPasswordPage } from './pages/enduser/ResetPasswordPage';
import { VerifyEmailPage } from './pages/enduser/VerifyEmailPage';
import { NotFoundPage } from './pages/NotFoundPage';
import { ProjectLayout } from './pages/project/ProjectLayout';
import { ProjectsPage } from './pages/projects/ProjectsPage';

// The project pages carry the heavy libraries (React Flow, CodeMirror,
// uPlot, Swagger UI): each loads when first opened.
const SchemaPage = lazy(() => import('./pages/project/schema/SchemaPage').then((m) => ({ default: m.SchemaPage })));
const GeneratePage = lazy(() => import('./pages/project/generate/GeneratePage').then((m) => ({ default: m.GeneratePage })));
const ApiDocsPage = lazy(() => import('./pages/project/docs/ApiDocsPage').then((m) => ({ default: m.ApiDocsPage })));
const TestPage = lazy(() => import('./pages/project/test/TestPage').then((m) => ({ default: m.TestPage })));
const DataPage = lazy(() => import('./pages/project/data/DataPage').then((m) => ({ default: m.DataPage })));
const AnalyticsPage = lazy(() => import('./pages/project/analytics/AnalyticsPage').then((m) => ({ default: m.AnalyticsPage })));
const LogsPage = lazy(() => import('./pages/project/logs/LogsPage').then((m) => ({ default: m.LogsPage })));
const WebhooksPage = lazy(() => import('./pages/project/webhooks/WebhooksPage').then((m) => ({ default: m.WebhooksPage })));
const EmailPage = lazy(() => import('./pages/project/email/EmailPage').then((m) => ({ default: m.EmailPage })));
const SettingsPage = lazy(() => import('./pages/project/settings/SettingsPage').then((m) => ({ default: m.SettingsPage })));
const MembersPage = lazy(() => import('./pages/project/members/MembersPage').then((m) => ({ default: m.MembersPage })));
const AuditPage = lazy(() => import('./pages/project/audit/AuditPage').then((m) => ({ default: m.AuditPage })));
const InvitePage = lazy(() => import('./pages/invites/InvitePage').then((m) => ({ default: m.InvitePage })));

export const router = createBrowserRouter([
  {
    element: <ScrollReset />,
    children: [
  { path: '/login', element: <LoginPage /> },
  { path: '/signup', element: <SignupPage /> },
  // The pages of the links mailed to dashboard accounts (docs/accounts.md).
  { path: '/forgot-password', element: <ForgotPasswordPage /> },
  { path: '/reset-password', element: <AccountResetPasswordPage /> },
  { path: '/verify-email', element: <AccountVerifyEmailPage /> },
  { path: '/invites/:token', element: <Suspense><InvitePage /></Suspense> },
  // The pages of the links mailed to a project's end users: no dashboard session.
  { path: '/auth/reset-password', element: <ResetPasswordPage /> },
  { path: '/auth/verify-email', element: <VerifyEmailPage /> },
  { path: '/auth/confirm-email-change', element: <ConfirmEmailChangePage /> },
  {
    element: <RequireSession />,
    children: [
      { path: '/', element: <Navigate to="/projects" replace /> },
      { path: '/projects', element: <ProjectsPage /> },
      { path: '/account/security', element: <SecurityPage /> },
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
          { path: 'logs', element: <LogsPage /> },
          { path: 'webhooks', element: <WebhooksPage /> },
          { path: 'email', element: <EmailPage /> },
          { path: 'settings', element: <SettingsPage /> },
          { path: 'members', element: <MembersPage /> },
          { path: 'audit', element: <AuditPage /> },
        ],
      },
    ],
  },
  { path: '*', element: <NotFoundPage /> },
    ],
  },
]);
