import { Alert, Button, Group, Text } from '@mantine/core';
import { IconMail } from '@tabler/icons-react';
import { useState } from 'react';
import { useAccountQuery } from '../data/account/account-query';
import { useResendVerificationMutation } from '../data/account/verify-email-mutations';
import { describeError } from '../api/client';

/**
 * Reminds an owner whose address is not verified yet, with a resend button;
 * it sits in the page's flow (nothing floats over buttons) and can be
 * closed until the next visit.
 */
export function VerifyEmailBanner() {
  const account = useAccountQuery();
  const resend = useResendVerificationMutation();
  const [closed, setClosed] = useState(false);
  if (!account.data || account.data.email_verified || closed) return null;

  return (
    <Alert
      color="yellow"
      variant="light"
      icon={<IconMail aria-hidden />}
      title="Verify your e-mail address"
      withCloseButton
      closeButtonLabel="Hide until next time"
      onClose={() => setClosed(true)}
      role="status"
      data-testid="verify-email-banner"
    >
      <Text size="sm">
        We sent a link to {account.data.email}. Following it confirms the address is yours, so you can reset your password if you forget it.
      </Text>
      <Group gap="xs" mt="xs">
        <Button size="xs" variant="light" color="yellow" loading={resend.isPending} disabled={resend.isSuccess} onClick={() => resend.mutate()}>
          {resend.isSuccess ? 'Sent — check your inbox' : 'Send the link again'}
        </Button>
        {resend.isError && (
          <Text size="xs" c="red" role="alert">
            {describeError(resend.error).title}
          </Text>
        )}
      </Group>
    </Alert>
  );
}
