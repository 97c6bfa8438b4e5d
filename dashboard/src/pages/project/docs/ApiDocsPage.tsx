import { Anchor, Group, Paper, Stack, Text } from '@mantine/core';
import { IconExternalLink } from '@tabler/icons-react';
import { lazy, Suspense, useMemo } from 'react';
import { Link } from 'react-router';
import { isApiError } from '../../../api/client';
import { apiBasePath } from '../../../api/generated';
import { EmptyState } from '../../../components/EmptyState';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { KeyPicker } from '../../../components/KeyPicker';
import { LoadingState } from '../../../components/LoadingState';
import { PageHeader } from '../../../components/PageHeader';
import { openapiUrl, useOpenApiQuery } from '../../../data/openapi/openapi-query';
import { bearerSchemeNames } from '../../../console/openapi';
import { isSessionCredential, useKeyVault } from '../../../lib/keyVault';
import { useProjectId } from '../useProjectId';
import { OperationCode } from './OperationCode';

const SwaggerPanel = lazy(() => import('./SwaggerPanel'));

export function ApiDocsPage() {
  const projectId = useProjectId();
  const openapi = useOpenApiQuery(projectId);
  const { selected } = useKeyVault(projectId);
  const schemes = useMemo(() => (openapi.data ? bearerSchemeNames(openapi.data) : []), [openapi.data]);

  return (
    <Stack gap="md">
      <PageHeader
        title="API Docs"
        description="Interactive documentation of the generated API. Authorize is filled in with the credential chosen here: your dashboard session (not counted against the plan) unless you pick an API key."
        actions={
          <Group gap="md">
            <Anchor href={openapiUrl(projectId)} target="_blank" rel="noreferrer" size="sm">
              openapi.json <IconExternalLink size={12} aria-hidden />
            </Anchor>
            <Anchor href={`${apiBasePath(projectId)}/openapi-3.0.json`} target="_blank" rel="noreferrer" size="sm" title="OpenAPI 3.0, for tools that read only 3.0 (Kong, older generators)">
              openapi-3.0.json <IconExternalLink size={12} aria-hidden />
            </Anchor>
            <Anchor href={`${apiBasePath(projectId)}/docs`} target="_blank" rel="noreferrer" size="sm">
              Standalone docs <IconExternalLink size={12} aria-hidden />
            </Anchor>
          </Group>
        }
      />
      <Paper withBorder p="sm">
        <KeyPicker projectId={projectId} label="Authorize with" />
      </Paper>
      {openapi.isPending && <LoadingState label="Loading the API description…" />}
      {openapi.error &&
        (isApiError(openapi.error, 'NOT_FOUND') ? (
          <EmptyState
            title="No API yet"
            action={<Anchor component={Link} to={`/projects/${projectId}/generate`}>Generate the API</Anchor>}
          >
            The documentation appears after the first generate.
          </EmptyState>
        ) : (
          <ErrorAlert error={openapi.error} title="The API description could not be loaded" />
        ))}
      {openapi.data && <OperationCode projectId={projectId} openapi={openapi.data} />}
      {openapi.data && (
        <Paper withBorder p="sm" data-testid="swagger">
          {selected ? null : (
            <Text size="sm" c="dimmed" mb="xs">
              Choose or create a key above to try the endpoints.
            </Text>
          )}
          <Suspense fallback={<LoadingState label="Loading Swagger UI…" />}>
            <SwaggerPanel url={openapiUrl(projectId)} schemes={schemes} credential={selected?.secret} credentialIsSession={isSessionCredential(selected)} />
          </Suspense>
        </Paper>
      )}
    </Stack>
  );
}
