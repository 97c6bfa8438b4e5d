import { Button, Group, List, Modal, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import type { Project } from '../../../api/types';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { useApiKeysQuery } from '../../../data/keys/api-keys-query';
import { useProjectDeleteMutation } from '../../../data/projects/project-delete-mutation';
import { usePublishedSchemaQuery } from '../../../data/schema/schema-versions-query';
import { EXTERNAL_ENGINE } from '../../../external/connection';
import { tones } from '../../../tones';

export function DeleteProjectSection({ project }: { project: Project }) {
  const [open, setOpen] = useState(false);
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="danger-title" style={{ borderColor: 'var(--mantine-color-red-4)' }}>
      <Stack gap="sm">
        <Title order={2} size="h4" id="danger-title" c={tones.danger}>
          Delete project
        </Title>
        <Text size="sm">
          {project.engine === EXTERNAL_ENGINE
            ? 'Deletes the project, its keys and its history. Your database and its records stay as they are.'
            : 'Deletes the project, its tables with all their records, its keys and its history.'}
        </Text>
        <Group>
          <Button color={tones.danger} variant="outline" onClick={() => setOpen(true)}>
            Delete this project…
          </Button>
        </Group>
      </Stack>
      {open && <DeleteProjectModal project={project} onClose={() => setOpen(false)} />}
    </Paper>
  );
}

/** Typed confirmation that lists exactly what the deletion destroys. */
function DeleteProjectModal({ project, onClose }: { project: Project; onClose: () => void }) {
  const [typed, setTyped] = useState('');
  const published = usePublishedSchemaQuery(project.id);
  const keys = useApiKeysQuery(project.id);
  const remove = useProjectDeleteMutation();
  const navigate = useNavigate();
  const tables = published.data?.tables ?? [];
  const matches = typed === project.name;

  return (
    <Modal opened onClose={onClose} title={`Delete ${project.name}?`} size="lg">
      <Stack gap="sm">
        <Text size="sm">This cannot be undone. Deleting the project permanently removes:</Text>
        <List size="sm">
          {project.engine === EXTERNAL_ENGINE ? (
            <List.Item>
              Tablesmith's description of your database ({tables.length} {tables.length === 1 ? 'table' : 'tables'}); nothing in the database itself is
              dropped or changed
            </List.Item>
          ) : tables.length > 0 ? (
            <List.Item>
              {tables.length} {tables.length === 1 ? 'table' : 'tables'} and every record in them: <b>{tables.map((t) => t.name).join(', ')}</b>
            </List.Item>
          ) : (
            <List.Item>the draft schema (nothing has been generated, so there are no records)</List.Item>
          )}
          <List.Item>
            {keys.data ? `${keys.data.length} API ${keys.data.length === 1 ? 'key' : 'keys'}` : 'its API keys'}: clients using them get 401
          </List.Item>
          <List.Item>
            the API at <span className="mono">/v1/{project.id}</span>, its published schema versions and its analytics
          </List.Item>
        </List>
        <TextInput
          label={`Type ${project.name} to confirm`}
          value={typed}
          onChange={(e) => setTyped(e.currentTarget.value)}
          autoComplete="off"
          data-autofocus
        />
        {remove.error ? <ErrorAlert error={remove.error} title="The project was not deleted" /> : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button
            color={tones.danger}
            disabled={!matches}
            loading={remove.isPending}
            onClick={() => remove.mutate(project.id, { onSuccess: () => navigate('/projects', { replace: true }) })}
          >
            Delete project and data
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
