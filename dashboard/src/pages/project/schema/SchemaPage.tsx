import { Alert, Badge, Box, Button, Group, Paper, ScrollArea, Stack, Tabs, Text, Title, Tooltip } from '@mantine/core';
import { useHotkeys } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { IconCheck, IconDeviceFloppy, IconHistory, IconPlus, IconRocket, IconShieldCheck } from '@tabler/icons-react';
import { ReactFlowProvider } from '@xyflow/react';
import { useEffect, useMemo, useState } from 'react';
import { Link, useOutletContext, useSearchParams } from 'react-router';
import { describeError, isApiError } from '../../../api/client';
import type { DraftWithMeta, Project } from '../../../api/types';
import { columnsBlockedByRows, tablesToCount } from '../../../builder/existingRows';
import { hasUnpublishedChanges, loadedDocumentJson, selectedTable } from '../../../builder/state';
import { sortedProblems } from '../../../evolution/schemaFile';
import type { SchemaProblems } from '../../../builder/validation';
import { EmptyState } from '../../../components/EmptyState';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { LoadingState } from '../../../components/LoadingState';
import { useRowCounts } from '../../../data/records/row-counts-query';
import { useChangePlanQuery } from '../../../data/schema/schema-plan-query';
import { useSchemaSaveMutation } from '../../../data/schema/schema-save-mutation';
import { useProjectId } from '../useProjectId';
import classes from './SchemaPage.module.css';
import { DeleteTableModal } from './DeleteTableModal';
import { DraftReplacedNotice, type DraftReplacement } from './DraftReplacedNotice';
import { ExistingRowsPanel } from './ExistingRowsPanel';
import { ExternalSourceBanner } from './ExternalSourceBanner';
import { focusProblemField } from './focusProblem';
import { JsonSchemaEditor } from './JsonSchemaEditor';
import { ProblemsPanel } from './ProblemsPanel';
import { SchemaFileButtons } from './SchemaFileButtons';
import { SchemaCanvas } from './SchemaCanvas';
import { TableEditor } from './TableEditor';
import { UnsavedChangesGuard } from './UnsavedChangesGuard';
import { useSchemaBuilder } from './useSchemaBuilder';
import { useServerValidation } from './useServerValidation';
import { VersionHistoryDrawer } from './VersionHistoryDrawer';
import { tones } from '../../../tones';
import { useProjectRole } from '../useProjectRole';
import { atLeast, roleNeeded } from '../../../lib/roles';

export function SchemaPage() {
  const projectId = useProjectId();
  const project = useOutletContext<Project | undefined>();
  const builder = useSchemaBuilder(projectId);
  const role = useProjectRole();
  const canEdit = atLeast(role, 'developer');
  const { state, dispatch, document, documentJson, clientProblems, dirty } = builder;
  const save = useSchemaSaveMutation();
  const clientClean = Object.keys(clientProblems).length === 0;
  const server = useServerValidation(projectId, document, documentJson, clientClean, !builder.loading);
  const [deletingKey, setDeletingKey] = useState<string | null>(null);
  const [view, setView] = useState<string | null>('diagram');
  const [historyOpen, setHistoryOpen] = useState(false);
  const [replacement, setReplacement] = useState<DraftReplacement | null>(null);

  // The server is the final word: once it has judged this exact document,
  // its verdict replaces the client's guess.
  const problems: SchemaProblems = server.verdict ? server.verdict.problems : clientProblems;
  const problemCounts = useMemo(() => {
    const counts: Record<string, number> = {};
    for (const path of Object.keys(problems)) {
      const index = /^tables\[(\d+)\]/.exec(path)?.[1];
      const table = index !== undefined ? state.tables[Number(index)] : undefined;
      if (table) counts[table.key] = (counts[table.key] ?? 0) + 1;
    }
    return counts;
  }, [problems, state.tables]);

  const selected = selectedTable(state);
  const selectedIndex = state.tables.findIndex((t) => t.key === state.selectedTableKey);
  const unpublished = hasUnpublishedChanges(builder.saved, state.published);

  // What generate would refuse because of rows already there: worked out
  // here from row counts while the draft is edited, and from the server's
  // plan check once it is saved.
  const rowCounts = useRowCounts(projectId, useMemo(() => tablesToCount(document, state.published), [document, state.published]));
  const blockedColumns = columnsBlockedByRows(document, state.published, rowCounts);
  const plan = useChangePlanQuery(projectId, { check: true, enabled: !builder.loading && !dirty && unpublished });
  const planViolations = !dirty && unpublished ? (plan.data?.violations?.length ?? 0) : 0;
  const generateBlockedBy =
    blockedColumns.length > 0
      ? `Existing rows block ${blockedColumns.length === 1 ? 'a new column' : `${blockedColumns.length} new columns`}: see above`
      : planViolations > 0
        ? `Existing rows break ${planViolations === 1 ? 'a rule' : `${planViolations} rules`} of this change: see Generate`
        : null;

  const saveDraft = () => {
    if (save.isPending || !dirty) return;
    const sent = document;
    const sentJson = documentJson;
    save.mutate(
      { projectId, document: sent },
      {
        onSuccess: (meta) => {
          dispatch({ type: 'markSaved', document: sent });
          const saved = meta?.problems ?? {};
          const count = Object.keys(saved).length;
          if (meta?.valid === false || count > 0) {
            // Saved as work in progress: say so, not "saved" in green.
            server.adopt(saved, sentJson);
            notifications.show({
              color: tones.warning,
              title: `Saved with ${count} ${count === 1 ? 'problem' : 'problems'}`,
              message: 'The draft is kept, but it cannot be generated until the problems listed above are fixed.',
            });
          } else notifications.show({ color: 'teal', title: 'Schema saved', message: 'Generate to publish it to the API.' });
        },
        onError: (error) => {
          if (isApiError(error, 'VALIDATION_ERROR') && Object.keys(error.details).length) server.adopt(error.details, sentJson);
          const { title, lines } = describeError(error);
          notifications.show({ color: 'red', title: 'The schema was not saved', message: [title, ...lines].join(' · ') });
        },
      },
    );
  };

  useHotkeys([['mod+S', saveDraft]], []);

  // A problem link selects its table, then scrolls to and focuses its field.
  const goToProblem = (path: string) => {
    const index = /^tables\[(\d+)\]/.exec(path)?.[1];
    if (index === undefined) return;
    dispatch({ type: 'selectTableAt', index: Number(index) });
    setView('diagram');
    focusProblemField(path);
  };

  // The Generate page links here with ?problem=<path>.
  const [searchParams, setSearchParams] = useSearchParams();
  const linkedProblem = searchParams.get('problem');
  useEffect(() => {
    if (builder.loading || !linkedProblem) return;
    goToProblem(linkedProblem);
    setSearchParams((params) => {
      params.delete('problem');
      return params;
    }, { replace: true });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per link
  }, [builder.loading, linkedProblem]);

  // An upload or a reset saved a new draft: the builder shows it, and the
  // server's verdict on it (meta.problems) marks the fields it concerns.
  const showReplacedDraft = (saved: DraftWithMeta, title: string) => {
    builder.replaceDraft(saved.document);
    const problems = saved.meta.problems ?? {};
    server.adopt(problems, loadedDocumentJson(saved.document, state.published));
    // Open the table of the first problem, so its field shows it.
    const firstProblem = sortedProblems(problems)[0]?.[0];
    const tableIndex = firstProblem ? /^tables\[(\d+)\]/.exec(firstProblem)?.[1] : undefined;
    if (tableIndex !== undefined) dispatch({ type: 'selectTableAt', index: Number(tableIndex) });
    setReplacement({
      title,
      document: saved.document,
      problems: saved.meta.problems ?? {},
      hasUnpublishedChanges: saved.meta.has_unpublished_changes ?? hasUnpublishedChanges(saved.document, state.published),
    });
    setView('diagram');
  };

  if (builder.loadError) return <ErrorAlert error={builder.loadError} title="Could not load the schema" />;
  if (builder.loading) return <LoadingState label="Loading the schema…" />;

  return (
    <Stack gap="sm" className={classes.page}>
      <UnsavedChangesGuard dirty={dirty} />
      <div className={classes.toolbar}>
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Group gap="sm">
            <Title order={1} size="h2">
              Schema
            </Title>
            <SaveStateBadges dirty={dirty} unpublished={unpublished} neverGenerated={state.published === null && !builder.publishedError} />
          </Group>
          <Group gap="xs">
            {canEdit && (
              <Button variant="default" leftSection={<IconPlus size={16} />} onClick={() => dispatch({ type: 'addTable' })}>
                Add table
              </Button>
            )}
            <Tooltip label="Ask the server to check the schema">
              <Button variant="default" leftSection={<IconShieldCheck size={16} />} onClick={server.checkNow} loading={server.checkingByHand}>
                Validate
              </Button>
            </Tooltip>
            {canEdit && (
              <Button leftSection={<IconDeviceFloppy size={16} />} onClick={saveDraft} loading={save.isPending} disabled={!dirty}>
                Save
              </Button>
            )}
            {canEdit && !dirty && unpublished && generateBlockedBy === null && (
              <Button component={Link} to="../generate" relative="path" leftSection={<IconRocket size={16} />}>
                Generate
              </Button>
            )}
            {canEdit && !dirty && unpublished && generateBlockedBy !== null && (
              <Tooltip label={generateBlockedBy}>
                {/* A disabled button gets no pointer events: the wrapper shows the reason. */}
                <span tabIndex={0} aria-describedby="generate-blocked-reason">
                  <Button leftSection={<IconRocket size={16} />} disabled>
                    Generate
                  </Button>
                </span>
              </Tooltip>
            )}
          </Group>
        </Group>
        <Group gap="xs" wrap="wrap" aria-label="Schema file and versions" role="group">
          <SchemaFileButtons
            projectId={projectId}
            current={document}
            dirty={dirty}
            onUploaded={(saved, filename) => {
              showReplacedDraft(saved, `Uploaded ${filename}`);
              notifications.show({ color: 'teal', title: 'Schema uploaded', message: `${filename} is now the draft.` });
            }}
          />
          <Button variant="default" leftSection={<IconHistory size={16} />} onClick={() => setHistoryOpen(true)}>
            Version history
          </Button>
          {/* Always there, one line high, so what it says never moves the page. */}
          <Text size="sm" className={classes.status} role="status" data-testid="validation-status">
            {generateBlockedBy !== null && !dirty && unpublished ? (
              <Text span size="sm" c={tones.danger} id="generate-blocked-reason">
                Generate is blocked. {generateBlockedBy}.
              </Text>
            ) : server.verdict && Object.keys(server.verdict.problems).length === 0 && state.tables.length > 0 ? (
              <Text span size="sm" c={tones.success}>
                <IconCheck size={14} aria-hidden /> The server accepts this schema.
              </Text>
            ) : server.checking ? (
              <Text span size="sm" c="dimmed">
                Checking with the server…
              </Text>
            ) : null}
          </Text>
        </Group>
      </div>
      {!canEdit && (
        <Alert color="gray" variant="light" title="Read only">
          You are a {role ?? 'member'} in this project: you can read the schema, not change it. {roleNeeded('developer')}.
        </Alert>
      )}
      {project?.engine === 'postgres_external' && <ExternalSourceBanner project={project} />}
      {replacement && (
        <DraftReplacedNotice
          replacement={replacement}
          projectId={projectId}
          onSelectTable={(i) => dispatch({ type: 'selectTableAt', index: i })}
          onDismiss={() => setReplacement(null)}
        />
      )}

      {builder.publishedError ? (
        <Alert color="yellow" variant="light" title="The published schema could not be read">
          Renames will not be recognised as renames: {describeError(builder.publishedError).title}
        </Alert>
      ) : null}
      <ProblemsPanel
        problems={problems}
        document={document}
        fromServer={Boolean(server.verdict)}
        onSelectPath={goToProblem}
      />
      <ExistingRowsPanel blocked={blockedColumns} tables={state.tables} dispatch={dispatch} onSelectPath={goToProblem} />

      {state.tables.length === 0 ? (
        <Paper withBorder p="xl">
          <EmptyState
            title="Start with a table"
            action={
              <Button leftSection={<IconPlus size={16} />} onClick={() => dispatch({ type: 'addTable', name: 'users' })}>
                Add a users table
              </Button>
            }
          >
            Every table gets an id, created_at and updated_at. Add your own columns, link tables with foreign keys, then
            generate the API.
          </EmptyState>
        </Paper>
      ) : (
        <div className={classes.workspace}>
          <Paper withBorder className={classes.canvasPane}>
            <Tabs value={view} onChange={setView} keepMounted={false} className={classes.tabs}>
              <Tabs.List>
                <Tabs.Tab value="diagram">Diagram</Tabs.Tab>
                <Tabs.Tab value="json">JSON</Tabs.Tab>
              </Tabs.List>
              <Tabs.Panel value="diagram" className={classes.panel}>
                <ReactFlowProvider>
                  <SchemaCanvas tables={state.tables} selectedTableKey={state.selectedTableKey} problemCounts={problemCounts} dispatch={dispatch} />
                </ReactFlowProvider>
              </Tabs.Panel>
              <Tabs.Panel value="json" className={classes.panel} p="xs">
                <JsonSchemaEditor
                  document={document}
                  onApply={(doc) => {
                    dispatch({ type: 'replaceDocument', document: doc });
                    setView('diagram');
                  }}
                />
              </Tabs.Panel>
            </Tabs>
          </Paper>
          <Paper withBorder className={classes.editorPane} component="section" aria-label="Table editor">
            <ScrollArea
              className={classes.editorScroll}
              type="auto"
              offsetScrollbars
              // Its controls are off for a viewer: the region itself takes the focus to scroll.
              viewportProps={canEdit ? undefined : { tabIndex: 0, role: 'region', 'aria-label': 'Table settings, read only' }}
            >
              <Box p="md">
                {selected ? (
                  // A viewer reads the table's settings; every control is off.
                  <fieldset disabled={!canEdit} style={{ border: 0, padding: 0, margin: 0, minWidth: 0 }}>
                    <TableEditor
                      key={selected.key}
                      table={selected}
                      tableIndex={selectedIndex}
                      tables={state.tables}
                      problems={problems}
                      dispatch={dispatch}
                      onDeleteRequest={() => setDeletingKey(selected.key)}
                    />
                  </fieldset>
                ) : (
                  <Text c="dimmed">Select a table in the diagram to edit it.</Text>
                )}
              </Box>
            </ScrollArea>
          </Paper>
        </div>
      )}
      <VersionHistoryDrawer
        projectId={projectId}
        opened={historyOpen}
        onClose={() => setHistoryOpen(false)}
        current={document}
        dirty={dirty}
        onReset={(saved, version) => {
          setHistoryOpen(false);
          showReplacedDraft(saved, `Reset to version ${version}`);
          notifications.show({
            color: 'teal',
            title: `Draft reset to version ${version}`,
            message: saved.meta.has_unpublished_changes === false ? 'It matches the published schema.' : 'Generate to apply it to the database.',
          });
        }}
      />
      <DeleteTableModal
        table={state.tables.find((t) => t.key === deletingKey)}
        tables={state.tables}
        published={state.published}
        onClose={() => setDeletingKey(null)}
        onConfirm={() => {
          if (deletingKey) dispatch({ type: 'deleteTable', tableKey: deletingKey });
          setDeletingKey(null);
        }}
      />
    </Stack>
  );
}

/**
 * One badge for where the draft stands: unsaved, saved but not generated,
 * or published. Saved is implied by the last two (a second "Saved" badge
 * beside them said it twice).
 */
function SaveStateBadges({ dirty, unpublished, neverGenerated }: { dirty: boolean; unpublished: boolean; neverGenerated: boolean }) {
  return (
    <Group gap={6} aria-live="polite">
      {dirty ? (
        <Badge color={tones.warning} variant="filled">
          Unsaved changes
        </Badge>
      ) : unpublished || neverGenerated ? (
        // A project never generated has nothing published, even with an empty draft.
        <Badge color={tones.warning} variant="outline">
          Saved, not generated yet
        </Badge>
      ) : (
        <Badge color={tones.success} variant="outline">
          Published
        </Badge>
      )}
    </Group>
  );
}
