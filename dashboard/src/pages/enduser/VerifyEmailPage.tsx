import { LinkPage } from './LinkPage';

/** /auth/verify-email: the link of a verification e-mail. */
export function VerifyEmailPage() {
  return (
    <LinkPage
      title="Verify your e-mail address"
      subtitle="Confirm that this address is yours."
      route="verify-email"
      action="Verify my address"
      done="Address verified"
    />
  );
}
