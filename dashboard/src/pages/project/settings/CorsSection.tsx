import { Alert, Button, Group, Paper, Radio, Stack, Text, Textarea, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState, type FormEvent } from 'react';
import { isApiError } from '../../../api/client';
import type { Project } from '../../../api/types';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { useProjectCorsMutation } from '../../../data/projects/project-cors-mutation';

const ANY = '*';

/** The origins as the form edits them: one a line. */
function originLines(project: Project): string {
  const origins = project.cors?.allowed_origins ?? [ANY];
  return origins.includes(ANY) ? '' : origins.join('\n');
}

/** Server field errors (`cors.allowed_origins[1]`) as one message naming each line. */
function originErrors(details: Record<string, string>, lines: string[]): string | undefined {
  const messages = Object.entries(details)
    .filter(([field]) => field.startsWith('cors.allowed_origins'))
    .map(([field, message]) => {
      const index = /\[(\d+)\]$/.exec(field)?.[1];
      return index === undefined ? message : `${lines[Number(index)] ?? `line ${Number(index) + 1}`}: ${message}`;
    });
  return messages.length ? messages.join('; ') : undefined;
}

/**
 * Which web pages may call the generated API from a browser (CORS). Any
 * origin is the default: the API authenticates with bearer credentials,
 * never cookies, so another site cannot borrow a visitor's session.
 */
export function CorsSection({ project }: { project: Project }) {
  const savedAny = originLines(project) === '';
  const [mode, setMode] = useState<'any' | 'list'>(savedAny ? 'any' : 'list');
  const [text, setText] = useState(originLines(project));
  const save = useProjectCorsMutation();
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const details = isApiError(save.error) ? save.error.details : {};
  const fieldError = originErrors(details, lines);
  const unchanged = mode === 'any' ? savedAny : !savedAny && lines.join('\n') === originLines(project);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const allowedOrigins = mode === 'any' ? [ANY] : lines;
    save.mutate(
      { projectId: project.id, allowedOrigins },
      { onSuccess: () => notifications.show({ color: 'teal', message: 'CORS origins saved' }) },
    );
  };

  return (
    <Paper withBorder p="md" component="section" aria-labelledby="cors-title">
      <form onSubmit={submit}>
        <Stack gap="sm">
          <Title order={2} size="h4" id="cors-title">
            Browser access (CORS)
          </Title>
          <Text size="sm" c="dimmed">
            Which web pages may call <span className="mono">{project.api_base_url}</span> from a browser with <span className="mono">fetch</span>.
            Requests from servers and mobile apps are not affected.
          </Text>
          <Radio.Group value={mode} onChange={(value) => setMode(value as 'any' | 'list')} label="Allowed origins">
            <Stack gap={6} mt={4}>
              <Radio value="any" label="Any origin (default): the API key or access token decides who gets in" />
              <Radio value="list" label="Only these origins" />
            </Stack>
          </Radio.Group>
          {mode === 'list' && (
            <Textarea
              label="Origins, one a line"
              description="Scheme, host and port exactly as the browser sends them, without a path: https://app.example.com, http://localhost:5173"
              placeholder={'https://app.example.com\nhttp://localhost:5173'}
              autosize
              minRows={3}
              value={text}
              onChange={(e) => setText(e.currentTarget.value)}
              error={fieldError}
              spellCheck={false}
              classNames={{ input: 'mono' }}
            />
          )}
          {mode === 'list' && lines.length === 0 && (
            <Alert color="yellow" variant="light">
              List at least one origin, or allow any origin.
            </Alert>
          )}
          {save.error && !fieldError ? <ErrorAlert error={save.error} title="The CORS setting was not saved" /> : null}
          <Group>
            <Button type="submit" loading={save.isPending} disabled={unchanged || (mode === 'list' && lines.length === 0)}>
              Save origins
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}
