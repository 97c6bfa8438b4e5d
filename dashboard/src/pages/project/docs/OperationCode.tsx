import { NativeSelect, Paper, Stack, Title } from '@mantine/core';
import { useMemo, useState } from 'react';
import { generatedUrl } from '../../../api/generated';
import { isStreamOperation } from '../../../api/realtime';
import { CodeSamples } from '../../../components/CodeSamples';
import { exampleBody } from '../../../console/exampleBody';
import { fillPath, listOperations, pathParameterNames, type ConsoleOperation, type OpenApiDocument } from '../../../console/openapi';
import { snippetCredential } from '../../../console/snippets';
import { usePublishedSchemaQuery } from '../../../data/schema/schema-versions-query';
import { isSessionCredential, useKeyVault } from '../../../lib/keyVault';

/**
 * Code to copy for any operation of the API: curl, fetch, Python and Go
 * with the base URL, an example body and the chosen credential filled in.
 */
export function OperationCode({ projectId, openapi }: { projectId: string; openapi: OpenApiDocument }) {
  const operations = useMemo(() => listOperations(openapi), [openapi]);
  const schema = usePublishedSchemaQuery(projectId).data ?? undefined;
  const { selected } = useKeyVault(projectId);
  const [operationId, setOperationId] = useState(() => operations.find((o) => o.isList)?.id ?? operations[0]?.id ?? '');
  const operation = operations.find((o) => o.id === operationId) ?? operations[0];
  const body = useMemo(() => (operation ? exampleBody(operation, schema, openapi) : ''), [operation, schema, openapi]);
  if (!operation) return null;
  return (
    <Paper withBorder p="sm" component="section" aria-labelledby="operation-code-title">
      <Stack gap="xs">
        <Title order={2} size="h5" id="operation-code-title">
          Code to copy
        </Title>
        <NativeSelect
          label="Operation"
          value={operation.id}
          onChange={(e) => setOperationId(e.currentTarget.value)}
          data={operations.map((o) => ({ value: o.id, label: `${o.method} ${o.path}${o.summary ? ` — ${o.summary}` : ''}` }))}
          maw={560}
        />
        <CodeSamples
          request={{
            method: operation.method,
            url: `${window.location.origin}${generatedUrl(projectId, fillPath(operation.path, examplePathValues(operation)))}`,
            credential: snippetCredential(selected && { secret: selected.secret, isSession: isSessionCredential(selected) }),
            body,
            stream: isStreamOperation(operation),
          }}
        />
      </Stack>
    </Paper>
  );
}

/** A value for each path parameter: the first record's id, as a uuid where the table's ids are uuids. */
function examplePathValues(operation: ConsoleOperation): Record<string, string> {
  const values: Record<string, string> = {};
  for (const name of pathParameterNames(operation.path)) {
    const parameter = operation.parameters.find((p) => p.in === 'path' && p.name === name);
    values[name] = parameter?.schema?.format === 'uuid' ? '00000000-0000-0000-0000-000000000001' : '1';
  }
  return values;
}
