import { Badge, Group, Radio, SimpleGrid, Stack, Text } from '@mantine/core';
import type { Engine } from '../../api/types';
import { tones } from '../../tones';

interface EngineCardsProps {
  engines: Engine[];
  value: string;
  onChange: (engine: string) => void;
  error?: string;
}

export function EngineCards({ engines, value, onChange, error }: EngineCardsProps) {
  return (
    <Radio.Group label="Database engine" value={value} onChange={onChange} error={error} required>
      <SimpleGrid cols={{ base: 1, sm: 2 }} mt="xs">
        {engines.map((engine) => (
          // Cards of one row share its height and start at the same line.
          <Radio.Card key={engine.name} value={engine.name} disabled={!engine.available} p="md" radius="md" aria-label={engine.label} h="100%" style={{ display: 'flex', alignItems: 'flex-start' }}>
            <Group wrap="nowrap" align="flex-start">
              <Radio.Indicator disabled={!engine.available} />
              <Stack gap={4} style={{ minWidth: 0 }}>
                <Group gap="xs" wrap="wrap">
                  <Text fw={600}>{engine.label}</Text>
                  {engine.recommended && (
                    <Badge size="sm" color={tones.success} variant="filled">
                      Recommended
                    </Badge>
                  )}
                </Group>
                {engine.description && <Text size="sm">{engine.description}</Text>}
                {engine.reason && (
                  <Text size="sm" c="dimmed">
                    {engine.reason}
                  </Text>
                )}
                {!engine.available && (
                  <Text size="sm" c={tones.danger}>
                    Not available on this server
                  </Text>
                )}
              </Stack>
            </Group>
          </Radio.Card>
        ))}
      </SimpleGrid>
    </Radio.Group>
  );
}
