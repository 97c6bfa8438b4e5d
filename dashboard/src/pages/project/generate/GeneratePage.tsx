import { Accordion, Anchor, Button, Group, Paper, Stack, Text } from '@mantine/core';
import { IconRocket } from '@tabler/icons-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { isApiError } from '../../../api/client';
import type { GenerateResult } from '../../../api/types';
import { EmptyState } from '../../../components/EmptyState';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { LoadingState } from '../../../components/LoadingState';
import { PageHeader } from '../../../components/PageHeader';
import { useGenerateMutation } from '../../../data/schema/generate-mutation';
import { useChangePlanQuery } from '../../../data/schema/schema-plan-query';
import { useProjectId } from '../useProjectId';
import { ChangeList } from './ChangeList';
import { DestructiveConfirm } from './DestructiveConfirm';
import { GenerateResultPanel } from './GenerateResultPanel';
import { tones } from '../../../tones';

export function GeneratePage() {
  const projectId = useProjectId();
  const plan = useChangePlanQuery(projectId);
  const generate = useGenerateMutation();
  const [confirmed, setConfirmed] = useState(false);
  const [result, setResult] = useState<GenerateResult | null>(null);

  const refusal = isApiError(generate.error, 'DESTRUCTIVE_CHANGE') ? generate.error : undefined;
  const destructive = Boolean(plan.data?.destructive || refusal);
  const changes = plan.data?.changes ?? [];
  const blocked = destructive && !confirmed;

  const run = () => {
    setResult(null);
    generate.mutate(
      { projectId, confirmDestructive: destructive && confirmed },
      {
        onSuccess: (r) => {
          setResult(r);
          setConfirmed(false);
        },
        onError: (error) => {
          if (isApiError(error, 'DESTRUCTIVE_CHANGE')) {
            setConfirmed(false);
            void plan.refetch();
          }
        },
      },
    );
  };

  return (
    <Stack gap="md" maw={1100}>
      <PageHeader
        title="Generate"
        description="Applies the saved schema to the database in one transaction and publishes the API. Nothing changes if any step fails."
      />
      {result && <GenerateResultPanel result={result} projectId={projectId} />}
      {plan.isPending && <LoadingState label="Working out what will change…" />}
      {plan.error && (
        <>
          <ErrorAlert error={plan.error} title="The change plan could not be made" />
          {isApiError(plan.error, 'VALIDATION_ERROR') && (
            <Text size="sm">
              Fix the schema in the{' '}
              <Anchor component={Link} to={`/projects/${projectId}/schema`}>
                builder
              </Anchor>{' '}
              first.
            </Text>
          )}
        </>
      )}
      {plan.data && changes.length === 0 && !result && (
        <Paper withBorder p="lg">
          <EmptyState title="Nothing to generate" icon={<IconRocket size={26} />}
            action={<Anchor component={Link} to={`/projects/${projectId}/schema`}>Open the schema builder</Anchor>}>
            The published API already matches the saved schema. Change and save the schema to generate a new version.
          </EmptyState>
        </Paper>
      )}
      {plan.data && changes.length > 0 && (
        <Paper withBorder p="md">
          <Stack gap="md">
            <Text fw={600}>
              {changes.length} pending {changes.length === 1 ? 'change' : 'changes'}
            </Text>
            <ChangeList changes={changes} />
            {plan.data.statements.length > 0 && (
              <Accordion variant="contained">
                <Accordion.Item value="sql">
                  <Accordion.Control>SQL that will run ({plan.data.statements.length} statements)</Accordion.Control>
                  <Accordion.Panel>
                    <pre className="pre-block" aria-label="SQL statements">
                      {plan.data.statements.map((s) => (s.trim().endsWith(';') ? s : `${s};`)).join('\n\n')}
                    </pre>
                  </Accordion.Panel>
                </Accordion.Item>
              </Accordion>
            )}
            {destructive && (
              <DestructiveConfirm changes={changes} refusal={refusal?.details} confirmed={confirmed} onConfirmedChange={setConfirmed} />
            )}
            {generate.error && !refusal && <ErrorAlert error={generate.error} title="Generate failed; nothing was changed" />}
            <Group>
              <Button
                size="md"
                leftSection={<IconRocket size={18} />}
                onClick={run}
                loading={generate.isPending}
                disabled={blocked}
                color={destructive ? tones.danger : undefined}
              >
                {destructive ? 'Generate and delete data' : 'Generate API'}
              </Button>
              {generate.isPending && (
                <Text size="sm" c="dimmed" role="status">
                  Applying {plan.data.statements.length} statements and publishing…
                </Text>
              )}
              {blocked && !generate.isPending && (
                <Text size="sm" c="dimmed">
                  Tick the confirmation above to go on.
                </Text>
              )}
            </Group>
          </Stack>
        </Paper>
      )}
    </Stack>
  );
}
