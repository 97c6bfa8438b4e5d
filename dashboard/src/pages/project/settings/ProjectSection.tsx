import { Button, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState, type FormEvent } from 'react';
import { isApiError } from '../../../api/client';
import type { Project } from '../../../api/types';
import { CopyValue } from '../../../components/CopyValue';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { useProjectUpdateMutation } from '../../../data/projects/project-update-mutation';
import { formatDate } from '../../../lib/format';

export function ProjectSection({ project }: { project: Project }) {
  const [name, setName] = useState(project.name);
  const update = useProjectUpdateMutation();
  const details = isApiError(update.error) ? update.error.details : {};

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!name.trim() || name.trim() === project.name) return;
    update.mutate(
      { projectId: project.id, name: name.trim() },
      { onSuccess: () => notifications.show({ color: 'teal', message: 'Project renamed' }) },
    );
  };

  return (
    <Paper withBorder p="md" component="section" aria-labelledby="project-title">
      <Stack gap="sm">
        <Title order={2} size="h4" id="project-title">
          Project
        </Title>
        <Text size="sm" component="div">
          Id <CopyValue value={project.id} what="project id" /> · engine <span className="mono">{project.engine}</span> · created {formatDate(project.created_at)}
        </Text>
        <Text size="sm" component="div">
          API base URL <CopyValue value={project.api_base_url ?? `${window.location.origin}/v1/${project.id}`} what="base URL" />
        </Text>
        <form onSubmit={submit}>
          <Group align="flex-end" gap="sm">
            <TextInput label="Project name" value={name} onChange={(e) => setName(e.currentTarget.value)} error={details.name} required />
            <Button type="submit" loading={update.isPending} disabled={!name.trim() || name.trim() === project.name}>
              Rename
            </Button>
          </Group>
        </form>
        {update.error && !Object.keys(details).length ? <ErrorAlert error={update.error} title="The project was not renamed" /> : null}
      </Stack>
    </Paper>
  );
}
