import { Box, Center, Paper, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { BrandMark } from '../../components/BrandMark';

interface AuthCardProps {
  title: string;
  subtitle: ReactNode;
  children: ReactNode;
}

export function AuthCard({ title, subtitle, children }: AuthCardProps) {
  return (
    <Center component="main" mih="100%" p="md" bg="gray.0">
      <Box w="100%" maw={420}>
        <Stack gap="md">
          <Center>
            <BrandMark size="lg" />
          </Center>
          <Paper withBorder shadow="sm" p="xl">
            <Stack gap="md">
              <div>
                <Title order={1} size="h3">
                  {title}
                </Title>
                <Text c="dimmed" size="sm">
                  {subtitle}
                </Text>
              </div>
              {children}
            </Stack>
          </Paper>
        </Stack>
      </Box>
    </Center>
  );
}
