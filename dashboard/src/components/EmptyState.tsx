import { Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconDatabaseOff } from '@tabler/icons-react';
import type { ReactNode } from 'react';

interface EmptyStateProps {
  title: string;
  children?: ReactNode;
  action?: ReactNode;
  icon?: ReactNode;
}

export function EmptyState({ title, children, action, icon }: EmptyStateProps) {
  return (
    <Stack align="center" gap="sm" py="xl" ta="center">
      <ThemeIcon size={48} radius="xl" variant="light" color="gray" aria-hidden>
        {icon ?? <IconDatabaseOff size={26} />}
      </ThemeIcon>
      <Title order={3} size="h4">
        {title}
      </Title>
      {children && (
        <Text c="dimmed" maw={520}>
          {children}
        </Text>
      )}
      {action}
    </Stack>
  );
}
