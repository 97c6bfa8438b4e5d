import { Navigate, Outlet, useLocation } from 'react-router';
import { useSessionToken } from '../api/useSessionToken';

/** Sends visitors without a session to the log-in page, and back here after. */
export function RequireSession() {
  const token = useSessionToken();
  const location = useLocation();
  if (!token) return <Navigate to="/login" replace state={{ from: location.pathname + location.search }} />;
  return <Outlet />;
}
