import { Anchor, Button, PasswordInput, Stack, Text } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { isApiError } from '../../api/client';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useConfirmPasswordResetMutation } from '../../data/account/password-reset-mutations';
import { AuthCard } from './AuthCard';

const MIN_PASSWORD = 8;

/** The page a reset link opens: the new password twice, then signed in. */
export function ResetPasswordPage() {
  const token = useSearchParams()[0].get('token') ?? '';
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [touched, setTouched] = useState(false);
  const confirm = useConfirmPasswordResetMutation();
  const navigate = useNavigate();
  const details = isApiError(confirm.error) ? confirm.error.details : {};
  const badLink = !token || Boolean(details.token);

  const localErrors = {
    password: password.length >= MIN_PASSWORD ? undefined : `Use at least ${MIN_PASSWORD} characters`,
    repeat: repeat === password ? undefined : 'The two passwords differ',
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    if (Object.values(localErrors).some(Boolean)) return;
    confirm.mutate({ token, password }, { onSuccess: () => navigate('/projects', { replace: true }) });
  };

  if (badLink) {
    return (
      <AuthCard title="This link does not work" subtitle="Reset links work once, for one hour.">
        <Stack gap="sm">
          <Text size="sm">{details.token ? confirm.error?.message : 'The link is missing its token. Open it from the e-mail again.'}</Text>
          <Button component={Link} to="/forgot-password" fullWidth>
            Send a new link
          </Button>
        </Stack>
      </AuthCard>
    );
  }

  return (
    <AuthCard
      title="Choose a new password"
      subtitle={
        <>
          Every other session of your account ends.{' '}
          <Anchor component={Link} to="/login">
            Log in
          </Anchor>{' '}
          instead
        </>
      }
    >
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          {confirm.error && !Object.keys(details).length ? <ErrorAlert error={confirm.error} /> : null}
          <PasswordInput
            label="New password"
            description={`At least ${MIN_PASSWORD} characters`}
            autoComplete="new-password"
            required
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
            error={details.password ?? (touched ? localErrors.password : undefined)}
            data-autofocus
          />
          <PasswordInput
            label="Repeat the new password"
            autoComplete="new-password"
            required
            value={repeat}
            onChange={(e) => setRepeat(e.currentTarget.value)}
            error={touched ? localErrors.repeat : undefined}
          />
          <Button type="submit" loading={confirm.isPending} fullWidth>
            Set password and log in
          </Button>
        </Stack>
      </form>
    </AuthCard>
  );
}
