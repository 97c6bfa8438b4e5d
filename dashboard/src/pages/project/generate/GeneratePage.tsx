import { Accordion, Alert, Anchor, Button, Group, List, Paper, Stack, Text } from '@mantine/core';
import { IconAlertTriangle, IconInfoCircle, IconRefresh, IconRocket } from '@tabler/icons-react';
import { useMemo, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { isApiError } from '../../../api/client';
import type { GenerateResult } from '../../../api/types';
import { EmptyState } from '../../../components/EmptyState';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { LoadingState } from '../../../components/LoadingState';
import { PageHeader } from '../../../components/PageHeader';
import { useGenerateMutation } from '../../../data/schema/generate-mutation';
import { useChangePlanQuery } from '../../../data/schema/schema-plan-query';
import { useDraftSchemaQuery } from '../../../data/schema/schema-query';
import { useSchemaVersionsQuery } from '../../../data/schema/schema-versions-query';
import { attachFindings, currentViolations, describeViolation, lockedTableName, pathOf, violationsOf } from '../../../evolution/plan';
import { tones } from '../../../tones';
import { ProblemsPanel } from '../schema/ProblemsPanel';
import { useProjectId } from '../useProjectId';
import { ChangeList, terminated } from './ChangeList';
import { DestructiveConfirm } from './DestructiveConfirm';
import { GenerateResultPanel } from './GenerateResultPanel';
import { IndexBuildsPanel } from './IndexBuildsPanel';
import { RoleGate } from '../../../components/RoleGate';

export function GeneratePage() {
  const projectId = useProjectId();
  // The prechecks run with the plan, so rows that would block the generate
  // show before anyone presses it.
  const plan = useChangePlanQuery(projectId, { check: true });
  const generate = useGenerateMutation();
  const draft = useDraftSchemaQuery(projectId);
  const navigate = useNavigate();
  const [confirmed, setConfirmed] = useState(false);
  const [result, setResult] = useState<GenerateResult | null>(null);
  // The newest version's index builds, when they are still under way or
  // failed: they outlive the generate's answer (and a reload of this page).
  const versions = useSchemaVersionsQuery(projectId);
  const latest = versions.data?.[0];
  const unfinishedBuilds = latest?.indexes && latest.indexes.state !== 'ready' ? latest : undefined;

  const refusal = isApiError(generate.error, 'DESTRUCTIVE_CHANGE') ? generate.error : undefined;
  const conflict = isApiError(generate.error, 'CONFLICT') ? generate.error : undefined;
  const refusedRows = violationsOf(conflict);
  const destructive = Boolean(plan.data?.destructive || refusal);
  const changes = useMemo(() => plan.data?.changes ?? [], [plan.data]);
  const violations = currentViolations(plan.data?.violations, refusedRows);
  const findings = useMemo(() => attachFindings(changes, violations, conflict?.details ?? {}), [changes, violations, conflict]);
  const blockedCount = findings.perChange.filter((f) => f.violations.length > 0).length;
  const conflictShownAtChanges = Boolean(conflict) && (refusedRows.length > 0 || findings.perChange.some((f) => f.refusals.length > 0));
  // Rows that break the plan make a generate now a sure refusal: the button
  // waits until they are fixed (and checked again) or the draft changes.
  const blockedByRows = violations.length > 0;
  const blocked = (destructive && !confirmed) || blockedByRows;

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

  const unmatched = [
    ...findings.unmatchedViolations.map((v) => [pathOf(v), describeViolation(v)] as const),
    ...findings.unmatchedRefusals,
  ];

  return (
    <Stack gap="md" maw={1100}>
      <PageHeader
        title="Generate"
        description="Applies the saved schema to the database in one transaction and publishes the API. Nothing changes if any step fails."
      />
      {result && <GenerateResultPanel result={result} projectId={projectId} />}
      {!result && unfinishedBuilds && <IndexBuildsPanel projectId={projectId} version={unfinishedBuilds.version} initial={unfinishedBuilds.indexes} />}
      {plan.isPending && <LoadingState label="Working out what will change and checking the existing rows…" />}
      {plan.error &&
        (isApiError(plan.error, 'VALIDATION_ERROR') && Object.keys(plan.error.details).length > 0 ? (
          // The same words as the builder ("table books › column publisher_id"),
          // each a link to the field in the builder.
          <ProblemsPanel
            problems={plan.error.details}
            document={draft.data ?? { tables: [] }}
            fromServer
            onSelectPath={(path) => void navigate(`/projects/${projectId}/schema?problem=${encodeURIComponent(path)}`)}
          />
        ) : (
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
        ))}
      {plan.data && changes.length === 0 && !result && (
        <Paper withBorder p="lg">
          <EmptyState
            title="Nothing to generate"
            icon={<IconRocket size={26} />}
            action={
              <Anchor component={Link} to={`/projects/${projectId}/schema`}>
                Open the schema builder
              </Anchor>
            }
          >
            The published API already matches the saved schema. Change and save the schema to generate a new version.
          </EmptyState>
        </Paper>
      )}
      {plan.data && changes.length > 0 && (
        <Paper withBorder p="md">
          <Stack gap="md">
            <Group justify="space-between" wrap="wrap">
              <Text fw={600}>
                {changes.length} pending {changes.length === 1 ? 'change' : 'changes'}
              </Text>
              <Button
                variant="subtle"
                size="xs"
                leftSection={<IconRefresh size={14} />}
                onClick={() => {
                  // A fresh check replaces what an earlier refusal found.
                  if (conflict) generate.reset();
                  void plan.refetch();
                }}
                loading={plan.isFetching}
              >
                Check existing rows again
              </Button>
            </Group>
            {(blockedCount > 0 || unmatched.length > 0) && (
              <Alert color="red" variant="light" icon={<IconAlertTriangle aria-hidden />} title="Existing rows block this generate" role="alert">
                <Text size="sm">
                  {blockedCount > 0
                    ? `${blockedCount} ${blockedCount === 1 ? 'change needs' : 'changes need'} existing rows to be fixed first (marked below). `
                    : ''}
                  Tablesmith never rewrites your rows to make a change fit: a generate now is refused and changes nothing. Fix the rows through the
                  API or the Data page, or change the draft, then check again.
                </Text>
                {unmatched.length > 0 && (
                  <List size="sm" mt={4}>
                    {unmatched.map(([where, message]) => (
                      <List.Item key={`${where}-${message}`}>
                        <b className="mono">{where}</b>: {message}
                      </List.Item>
                    ))}
                  </List>
                )}
              </Alert>
            )}
            {(plan.data.notes ?? []).length > 0 && (
              <Alert color="blue" variant="light" icon={<IconInfoCircle aria-hidden />} title="Notes on this plan">
                <List size="sm">
                  {(plan.data.notes ?? []).map((note) => (
                    <List.Item key={note}>{note}</List.Item>
                  ))}
                </List>
              </Alert>
            )}
            <ChangeList changes={changes} findings={findings.perChange} checked={plan.data.violations !== undefined} />
            {plan.data.locks.length > 0 && (
              <Text size="sm" data-testid="plan-locks">
                <b>While existing rows are checked</b>, writes to {plan.data.locks.map(lockedTableName).map((name, i) => (
                  <span key={name}>
                    {i > 0 ? ', ' : ''}
                    <span className="mono">{name}</span>
                  </span>
                ))}{' '}
                wait (reads go on); no lock waits longer than 5 seconds. Tables the plan does not touch are never locked.
              </Text>
            )}
            {(plan.data.statements.length > 0 || plan.data.after_commit.length > 0) && (
              <Accordion variant="contained" multiple>
                {plan.data.statements.length > 0 && (
                  <Accordion.Item value="sql">
                    <Accordion.Control>SQL that will run in one transaction ({count(plan.data.statements.length, 'statement')})</Accordion.Control>
                    <Accordion.Panel>
                      <pre className="pre-block" aria-label="SQL statements">
                        {plan.data.statements.map(terminated).join('\n\n')}
                      </pre>
                    </Accordion.Panel>
                  </Accordion.Item>
                )}
                {plan.data.after_commit.length > 0 && (
                  <Accordion.Item value="after">
                    <Accordion.Control>After the commit, without blocking the API ({count(plan.data.after_commit.length, 'statement')})</Accordion.Control>
                    <Accordion.Panel>
                      <Text size="sm" mb="xs">
                        These finish the change while reads and writes go on: constraints are validated and indexes built concurrently. One that
                        fails is listed with its error and finished by the next generate.
                      </Text>
                      <pre className="pre-block" aria-label="Statements after the commit">
                        {plan.data.after_commit.map(terminated).join('\n\n')}
                      </pre>
                    </Accordion.Panel>
                  </Accordion.Item>
                )}
              </Accordion>
            )}
            {destructive && (
              <DestructiveConfirm changes={changes} refusal={refusal?.details} confirmed={confirmed} onConfirmedChange={setConfirmed} />
            )}
            {conflictShownAtChanges && (
              <Alert color="red" variant="light" title="Generate was refused and changed nothing" role="alert" icon={<IconAlertTriangle aria-hidden />}>
                <Text size="sm">{conflict!.message}</Text>
                <Text size="sm">The changes it concerns are marked above.</Text>
              </Alert>
            )}
            {generate.error && !refusal && !conflictShownAtChanges && <ErrorAlert error={generate.error} title="Generate failed; nothing was changed" />}
            <Group>
              <RoleGate need="developer">
                <Button
                  size="md"
                  leftSection={<IconRocket size={18} />}
                  onClick={run}
                  loading={generate.isPending}
                  disabled={blocked}
                  aria-describedby={blockedByRows ? 'generate-blocked-reason' : undefined}
                  color={destructive ? tones.danger : undefined}
                >
                  {destructive ? 'Generate and delete data' : 'Generate API'}
                </Button>
              </RoleGate>
              {generate.isPending && (
                <Text size="sm" c="dimmed" role="status">
                  Applying {count(plan.data.statements.length, 'statement')} and publishing…
                </Text>
              )}
              {blockedByRows && !generate.isPending && (
                <Text size="sm" c={tones.danger} id="generate-blocked-reason" data-testid="generate-blocked-reason">
                  Blocked: {violations.length === 1 ? 'existing rows break a rule' : `existing rows break ${violations.length} rules`} of this plan (marked
                  above). Fix them or change the draft, then check again.
                </Text>
              )}
              {!blockedByRows && blocked && !generate.isPending && (
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

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
