import { LinkPage } from './LinkPage';

/** /auth/confirm-email-change: the link sent to the new address of an e-mail change. */
export function ConfirmEmailChangePage() {
  return (
    <LinkPage
      title="Confirm your new e-mail address"
      subtitle="Your account moves to this address once you confirm."
      route="email-change/confirm"
      action="Use this address"
      done="E-mail address changed"
    />
  );
}
