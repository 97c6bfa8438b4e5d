import { Button, Group, NativeSelect, Popover, Stack, Text, TextInput } from '@mantine/core';
import { IconClipboard, IconKey } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { useApiKeyCreateMutation } from '../data/keys/api-key-create-mutation';
import { isSessionCredential, rememberPastedKey, useKeyVault } from '../lib/keyVault';
import { tones } from '../tones';
import { ErrorAlert } from './ErrorAlert';

interface KeyPickerProps {
  projectId: string;
  label?: string;
  description?: string;
}

/**
 * Chooses the credential this browser sends to the generated API: the
 * dashboard session (the default, never counted against the plan), a key
 * it created (secrets are shown only once, so they are remembered here),
 * one pasted, or a new read-write key made on the spot. Creating a key
 * does not switch to it; choosing one does, and says it counts.
 */
export function KeyPicker({ projectId, label = 'API key', description }: KeyPickerProps) {
  const { keys, selected, select } = useKeyVault(projectId);
  return (
    <Group gap="xs" align="flex-end" wrap="wrap">
      {keys.length > 0 ? (
        <NativeSelect
          label={label}
          description={description}
          data={keys.map((k) => ({
            value: k.id,
            label: isSessionCredential(k)
              ? k.name
              : `${k.name} (${k.prefix ?? k.secret.slice(0, 8)}…)${k.scope ? ` · ${k.scope}` : ''} · counts against the plan`,
          }))}
          value={selected?.id ?? ''}
          onChange={(e) => select(e.currentTarget.value)}
          miw={240}
        />
      ) : null}
      {selected && !isSessionCredential(selected) ? (
        <Text size="xs" c={tones.warning} maw={260} data-testid="key-counts-note">
          Requests with this key count against the project&apos;s plan, like your customers&apos;.
        </Text>
      ) : null}
      {keys.length === 0 ? (
        <Text size="sm" c="dimmed" maw={360}>
          No API key is stored in this browser for this project. Create one or paste one you saved.
        </Text>
      ) : null}
      <CreateKeyButton projectId={projectId} />
      <PasteKeyButton projectId={projectId} />
    </Group>
  );
}

function CreateKeyButton({ projectId }: { projectId: string }) {
  const create = useApiKeyCreateMutation();
  return (
    <Stack gap={4}>
      <Button
        variant="light"
        leftSection={<IconKey size={16} />}
        loading={create.isPending}
        onClick={() => create.mutate({ projectId, name: `Dashboard ${new Date().toLocaleDateString()}`, scope: 'read_write' })}
      >
        Create a key
      </Button>
      {create.error ? <ErrorAlert error={create.error} title="The key was not created" /> : null}
    </Stack>
  );
}

function PasteKeyButton({ projectId }: { projectId: string }) {
  const [opened, setOpened] = useState(false);
  const [value, setValue] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!value.trim()) return;
    rememberPastedKey(projectId, value);
    setValue('');
    setOpened(false);
  };
  return (
    <Popover opened={opened} onChange={setOpened} position="bottom-end" trapFocus withArrow>
      <Popover.Target>
        <Button variant="default" leftSection={<IconClipboard size={16} />} onClick={() => setOpened((o) => !o)}>
          Paste a key
        </Button>
      </Popover.Target>
      <Popover.Dropdown>
        <form onSubmit={submit}>
          <Stack gap="xs" w={300}>
            <TextInput label="API key" placeholder="the full key" value={value} onChange={(e) => setValue(e.currentTarget.value)} autoComplete="off" data-autofocus />
            <Button type="submit" size="xs" disabled={!value.trim()}>
              Use this key
            </Button>
          </Stack>
        </form>
      </Popover.Dropdown>
    </Popover>
  );
}
