import { Alert, Button, Group, Stack, TextInput } from '@mantine/core';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { isApiError } from '../../api/client';
import type { Project } from '../../api/types';
import { ErrorAlert } from '../../components/ErrorAlert';
import { LoadingState } from '../../components/LoadingState';
import { useEnginesQuery } from '../../data/engines/engines-query';
import { useProjectCreateMutation } from '../../data/projects/project-create-mutation';
import { connectionFieldErrors, EXTERNAL_ENGINE } from '../../external/connection';
import { EngineCards } from './EngineCards';

// Error details shown at a field of the form; anything else shows in an alert.
const FIELD_KEYS = ['name', 'engine', 'connection', 'connection.url', 'connection.schema', 'url', 'schema'];

interface CreateProjectFormProps {
  onCreated: (project: Project) => void;
  onCancel?: () => void;
  blockedByPlan: boolean;
}

export function CreateProjectForm({ onCreated, onCancel, blockedByPlan }: CreateProjectFormProps) {
  const engines = useEnginesQuery();
  const create = useProjectCreateMutation();
  const [name, setName] = useState('');
  const [engine, setEngine] = useState('');
  const [url, setUrl] = useState('');
  const [schema, setSchema] = useState('public');
  const [touched, setTouched] = useState(false);
  const nameInput = useRef<HTMLInputElement>(null);
  // The field appears after the engines load, when the dialog has already
  // placed its focus (on its close button): move it to the name.
  const loaded = Boolean(engines.data);
  useEffect(() => {
    if (loaded) nameInput.current?.focus();
  }, [loaded]);

  useEffect(() => {
    if (engine || !engines.data) return;
    const preferred = engines.data.find((e) => e.recommended && e.available) ?? engines.data.find((e) => e.available);
    if (preferred) setEngine(preferred.name);
  }, [engine, engines.data]);

  const details = isApiError(create.error) ? create.error.details : {};
  // A connection the server refused names its problem under details.connection
  // (or connection.url / connection.schema); it belongs at the URL or the schema.
  const connectionErrors = isApiError(create.error) ? connectionFieldErrors(details, create.error.info) : {};
  const external = engine === EXTERNAL_ENGINE;
  const localErrors = {
    name: name.trim() ? undefined : 'Give the project a name',
    url: !external || /^postgres(ql)?:\/\//.test(url.trim()) ? undefined : 'Enter a postgres:// connection URL',
    schema: !external || schema.trim() ? undefined : 'Name the schema that holds the tables',
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    if (Object.values(localErrors).some(Boolean) || !engine) return;
    create.mutate(
      { name: name.trim(), engine, connection: external ? { url: url.trim(), schema: schema.trim() } : undefined },
      { onSuccess: onCreated },
    );
  };

  if (engines.isPending) return <LoadingState label="Loading engines…" />;
  if (engines.error) return <ErrorAlert error={engines.error} title="Could not load the database engines" />;

  const fieldError = (local: string | undefined, ...keys: string[]) =>
    keys.map((k) => details[k]).find(Boolean) ?? (touched ? local : undefined);

  return (
    <form onSubmit={submit} noValidate aria-label="New project">
      <Stack gap="md">
        {blockedByPlan && (
          <Alert color="yellow" title="Your plan's project limit is reached">
            Delete a project or move to a larger plan to create another.
          </Alert>
        )}
        {create.error && !Object.keys(details).some((k) => FIELD_KEYS.includes(k)) ? <ErrorAlert error={create.error} /> : null}
        <TextInput
          label="Project name"
          placeholder="My blog API"
          required
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={fieldError(localErrors.name, 'name')}
          ref={nameInput}
          data-autofocus
        />
        <EngineCards engines={engines.data} value={engine} onChange={setEngine} error={details.engine} />
        {external && (
          <Stack gap="sm">
            <TextInput
              label="Connection URL"
              description="The database is read when the project is created; its tables appear in the builder."
              placeholder="postgres://user:password@db.example.com:5432/app"
              required
              value={url}
              onChange={(e) => setUrl(e.currentTarget.value)}
              error={connectionErrors.url ?? (touched ? localErrors.url : undefined)}
              autoComplete="off"
            />
            <TextInput
              label="Schema"
              required
              value={schema}
              onChange={(e) => setSchema(e.currentTarget.value)}
              error={connectionErrors.schema ?? (touched ? localErrors.schema : undefined)}
            />
          </Stack>
        )}
        <Group justify="flex-end">
          {onCancel && (
            <Button variant="default" onClick={onCancel}>
              Cancel
            </Button>
          )}
          <Button type="submit" loading={create.isPending} disabled={blockedByPlan}>
            {external ? 'Connect and create project' : 'Create project'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
