import { useLayoutEffect } from 'react';
import { Outlet, useLocation, useNavigationType } from 'react-router';

/**
 * Every page opens at its top: a link to another page (not a change of the
 * query string, which filters and tabs use) scrolls the window up. Back and
 * forward leave the browser's own restoring alone.
 */
export function ScrollReset() {
  const { pathname } = useLocation();
  const navigationType = useNavigationType();
  useLayoutEffect(() => {
    if (navigationType !== 'POP') window.scrollTo(0, 0);
    // Only a new path counts, not the way there.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [pathname]);
  return <Outlet />;
}
