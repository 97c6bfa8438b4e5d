import { Alert, Anchor, Button, Stack, TextInput } from '@mantine/core';
import { IconMailForward } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { Link, useLocation } from 'react-router';
import { isApiError } from '../../api/client';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useRequestPasswordResetMutation } from '../../data/account/password-reset-mutations';
import { AuthCard } from './AuthCard';

/** Asks for a reset link. The answer never says whether the address has an account. */
export function ForgotPasswordPage() {
  const initial = (useLocation().state as { email?: string } | null)?.email ?? '';
  const [email, setEmail] = useState(initial);
  const reset = useRequestPasswordResetMutation();
  const details = isApiError(reset.error) ? reset.error.details : {};

  const submit = (event: FormEvent) => {
    event.preventDefault();
    reset.mutate(email.trim());
  };

  return (
    <AuthCard
      title="Reset your password"
      subtitle={
        <>
          Remembered it?{' '}
          <Anchor component={Link} to="/login">
            Log in
          </Anchor>
        </>
      }
    >
      {reset.isSuccess ? (
        <Alert color="teal" variant="light" icon={<IconMailForward aria-hidden />} title="Check your inbox" role="status">
          If an account uses {email.trim()}, we have sent it a link to choose a new password. The link works for one hour. No mail? Check the spam folder,
          or ask again in a minute.
        </Alert>
      ) : (
        <form onSubmit={submit} noValidate>
          <Stack gap="sm">
            {reset.error && !Object.keys(details).length ? <ErrorAlert error={reset.error} /> : null}
            <TextInput
              label="E-mail"
              description="We will send a link to choose a new password."
              type="email"
              autoComplete="email"
              required
              value={email}
              onChange={(e) => setEmail(e.currentTarget.value)}
              error={details.email}
              data-autofocus
            />
            <Button type="submit" loading={reset.isPending} disabled={!email.trim()} fullWidth>
              Send reset link
            </Button>
          </Stack>
        </form>
      )}
    </AuthCard>
  );
}
