import { Avatar, Badge, Group, Menu, Text, UnstyledButton } from '@mantine/core';
import { IconChevronDown, IconLogout, IconFolders, IconShieldLock } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { setSessionToken } from '../api/session';
import { useAccountQuery } from '../data/account/account-query';
import { forgetEverythingStored } from '../lib/keyVault';

export function AccountMenu() {
  const account = useAccountQuery();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const name = account.data?.name || account.data?.email || 'Account';

  const logOut = () => {
    setSessionToken(null, { byUser: true });
    forgetEverythingStored();
    queryClient.clear();
  };

  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <UnstyledButton aria-label={`Account menu for ${name}`}>
          <Group gap={8} wrap="nowrap">
            <Avatar size={30} radius="xl" color="indigo" aria-hidden>
              {name.slice(0, 1).toUpperCase()}
            </Avatar>
            <Text size="sm" fw={500} visibleFrom="sm">
              {name}
            </Text>
            {account.data?.plan && (
              <Badge size="sm" variant="outline" visibleFrom="sm">
                {account.data.plan}
              </Badge>
            )}
            <IconChevronDown size={14} aria-hidden />
          </Group>
        </UnstyledButton>
      </Menu.Target>
      <Menu.Dropdown>
        {account.data && (
          <Menu.Label>
            {account.data.email} · {account.data.plan} plan
          </Menu.Label>
        )}
        <Menu.Item leftSection={<IconFolders size={16} />} onClick={() => navigate('/projects')}>
          All projects
        </Menu.Item>
        <Menu.Item leftSection={<IconShieldLock size={16} />} onClick={() => navigate('/account/security')}>
          Security
        </Menu.Item>
        <Menu.Item leftSection={<IconLogout size={16} />} onClick={logOut}>
          Log out
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
