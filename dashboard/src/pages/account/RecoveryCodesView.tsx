import { Alert, Button, CopyButton, Group, SimpleGrid, Code, Stack } from '@mantine/core';
import { IconCheck, IconCopy, IconDownload, IconAlertTriangle } from '@tabler/icons-react';
import { saveFile } from '../../lib/saveFile';

interface RecoveryCodesViewProps {
  codes: string[];
  email?: string;
}

/** Recovery codes, shown this once, with Copy and Download. */
export function RecoveryCodesView({ codes, email }: RecoveryCodesViewProps) {
  const text = codes.join('\n') + '\n';
  const download = () => {
    const header = `Tablesmith recovery codes${email ? ` for ${email}` : ''}\nEach code signs in once when your authenticator app is not at hand.\n\n`;
    saveFile(new Blob([header + text], { type: 'text/plain' }), 'tablesmith-recovery-codes.txt');
  };
  return (
    <Stack gap="sm">
      <Alert color="yellow" variant="light" icon={<IconAlertTriangle aria-hidden />} title="Save these codes now">
        They are shown only this once. Each one signs you in once if you lose your authenticator app; keep them somewhere safe, like a password manager.
      </Alert>
      <SimpleGrid cols={2} spacing="xs" data-testid="recovery-codes">
        {codes.map((code) => (
          <Code key={code} className="mono" ta="center" fz="sm">
            {code}
          </Code>
        ))}
      </SimpleGrid>
      <Group gap="xs">
        <CopyButton value={text}>
          {({ copied, copy }) => (
            <Button variant="light" leftSection={copied ? <IconCheck size={16} /> : <IconCopy size={16} />} onClick={copy}>
              {copied ? 'Copied' : 'Copy all'}
            </Button>
          )}
        </CopyButton>
        <Button variant="light" leftSection={<IconDownload size={16} />} onClick={download}>
          Download
        </Button>
      </Group>
    </Stack>
  );
}
