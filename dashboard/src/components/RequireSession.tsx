import { Navigate, Outlet, useLocation } from 'react-router';
import { sessionEndedByUser } from '../api/session';
import { useSessionToken } from '../api/useSessionToken';

/** Sends visitors without a session to the log-in page, and back here after. */
export function RequireSession() {
  const token = useSessionToken();
  const location = useLocation();
  if (!token) {
    const from = sessionEndedByUser() ? undefined : location.pathname + location.search;
    return <Navigate to="/login" replace state={from ? { from } : null} />;
  }
  return <Outlet />;
}
