import { Button, Code, CopyButton, Group } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';

interface SecretBlockProps {
  value: string;
  /** The code block's data-testid, for the browser tests that read it. */
  testId: string;
}

/** A secret the server shows once (an API key, a webhook's signing secret), whole, with a Copy button. */
export function SecretBlock({ value, testId }: SecretBlockProps) {
  return (
    <Group gap="xs" wrap="nowrap">
      <Code block style={{ flex: 1, wordBreak: 'break-all', whiteSpace: 'pre-wrap' }} data-testid={testId}>
        {value}
      </Code>
      <CopyButton value={value}>
        {({ copied, copy }) => (
          <Button variant="filled" leftSection={copied ? <IconCheck size={16} /> : <IconCopy size={16} />} onClick={copy}>
            {copied ? 'Copied' : 'Copy'}
          </Button>
        )}
      </CopyButton>
    </Group>
  );
}
