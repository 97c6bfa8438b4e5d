import { Group, Text, ThemeIcon } from '@mantine/core';
import { IconTable } from '@tabler/icons-react';

export function BrandMark({ size = 'md' }: { size?: 'md' | 'lg' }) {
  return (
    <Group gap={8} wrap="nowrap">
      <ThemeIcon size={size === 'lg' ? 36 : 28} radius="md" aria-hidden>
        <IconTable size={size === 'lg' ? 22 : 18} />
      </ThemeIcon>
      <Text fw={700} size={size === 'lg' ? 'xl' : 'lg'}>
        Tablesmith
      </Text>
    </Group>
  );
}
