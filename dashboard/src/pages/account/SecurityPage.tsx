import { Anchor, AppShell, Container, Group, Stack } from '@mantine/core';
import { Link } from 'react-router';
import { AccountMenu } from '../../components/AccountMenu';
import { BrandMark } from '../../components/BrandMark';
import { ErrorAlert } from '../../components/ErrorAlert';
import { LoadingState } from '../../components/LoadingState';
import { PageHeader } from '../../components/PageHeader';
import { VerifyEmailBanner } from '../../components/VerifyEmailBanner';
import { useAccountQuery } from '../../data/account/account-query';
import { ChangePasswordCard } from './ChangePasswordCard';
import { TwoFactorCard } from './TwoFactorCard';

/** Account → Security: the password and two-factor authentication. */
export function SecurityPage() {
  const account = useAccountQuery();
  return (
    <AppShell header={{ height: 56 }} padding="md">
      <AppShell.Header px="md">
        <Group h="100%" justify="space-between">
          <Anchor component={Link} to="/projects" underline="never" c="inherit" aria-label="Tablesmith home">
            <BrandMark />
          </Anchor>
          <AccountMenu />
        </Group>
      </AppShell.Header>
      <AppShell.Main>
        <Container size="md">
          <PageHeader title="Security" description={account.data ? `How ${account.data.email} signs in.` : undefined} />
          {account.isPending && <LoadingState label="Loading your account…" />}
          {account.error && <ErrorAlert error={account.error} title="Could not load your account" />}
          {account.data && (
            <Stack gap="md">
              <VerifyEmailBanner />
              <ChangePasswordCard />
              <TwoFactorCard account={account.data} />
            </Stack>
          )}
        </Container>
      </AppShell.Main>
    </AppShell>
  );
}
