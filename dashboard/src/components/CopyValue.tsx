import { ActionIcon, CopyButton, Group, Text, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import type { ReactNode } from 'react';

interface CopyValueProps {
  value: string;
  /** What is copied, for the button's accessible name ("Copy project id"). */
  what: string;
  /** What is shown; the value itself in monospace unless given. */
  children?: ReactNode;
}

/** A value with a copy button beside it (base URL, project id, a path). */
export function CopyValue({ value, what, children }: CopyValueProps) {
  return (
    <Group gap={4} wrap="nowrap" component="span" display="inline-flex" style={{ verticalAlign: 'middle', maxWidth: '100%' }}>
      {children ?? (
        <Text span className="mono" size="sm" style={{ wordBreak: 'break-all' }}>
          {value}
        </Text>
      )}
      <CopyButton value={value} timeout={1500}>
        {({ copied, copy }) => (
          <Tooltip label={copied ? 'Copied' : `Copy ${what}`} withArrow>
            <ActionIcon variant="subtle" color={copied ? 'teal' : 'gray.7'} size="sm" onClick={copy} aria-label={`Copy ${what}`}>
              {copied ? <IconCheck size={14} aria-hidden /> : <IconCopy size={14} aria-hidden />}
            </ActionIcon>
          </Tooltip>
        )}
      </CopyButton>
    </Group>
  );
}
