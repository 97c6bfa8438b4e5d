import { Button, Card, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState, type FormEvent } from 'react';
import { isApiError } from '../../api/client';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useChangePasswordMutation } from '../../data/account/security-mutations';

const MIN_PASSWORD = 8;

/** Change the password; every other session of the account ends. */
export function ChangePasswordCard() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [touched, setTouched] = useState(false);
  const change = useChangePasswordMutation();
  const details = isApiError(change.error) ? change.error.details : {};
  const localErrors = {
    next: next.length >= MIN_PASSWORD ? undefined : `Use at least ${MIN_PASSWORD} characters`,
    repeat: repeat === next ? undefined : 'The two passwords differ',
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    if (Object.values(localErrors).some(Boolean)) return;
    change.mutate(
      { current_password: current, new_password: next },
      {
        onSuccess: () => {
          setCurrent('');
          setNext('');
          setRepeat('');
          setTouched(false);
          notifications.show({ color: 'teal', title: 'Password changed', message: 'Your other sessions have been signed out.' });
        },
      },
    );
  };

  return (
    <Card withBorder padding="lg">
      <form onSubmit={submit} noValidate>
        <Stack gap="sm" maw={420}>
          <div>
            <Title order={2} size="h4">
              Password
            </Title>
            <Text size="sm" c="dimmed">
              Changing it signs you out everywhere else.
            </Text>
          </div>
          {change.error && !Object.keys(details).length ? <ErrorAlert error={change.error} /> : null}
          <PasswordInput
            label="Current password"
            autoComplete="current-password"
            value={current}
            onChange={(e) => setCurrent(e.currentTarget.value)}
            error={details.current_password}
          />
          <PasswordInput
            label="New password"
            description={`At least ${MIN_PASSWORD} characters`}
            autoComplete="new-password"
            value={next}
            onChange={(e) => setNext(e.currentTarget.value)}
            error={details.new_password ?? (touched ? localErrors.next : undefined)}
          />
          <PasswordInput
            label="Repeat the new password"
            autoComplete="new-password"
            value={repeat}
            onChange={(e) => setRepeat(e.currentTarget.value)}
            error={touched ? localErrors.repeat : undefined}
          />
          <div>
            <Button type="submit" loading={change.isPending} disabled={!current}>
              Change password
            </Button>
          </div>
        </Stack>
      </form>
    </Card>
  );
}
