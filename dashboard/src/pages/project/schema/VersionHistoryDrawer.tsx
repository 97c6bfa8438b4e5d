import { Alert, Badge, Button, Drawer, Group, List, Modal, Paper, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconDownload, IconHistory, IconRestore } from '@tabler/icons-react';
import { useState } from 'react';
import { describeError } from '../../../api/client';
import type { DraftWithMeta, SchemaVersion } from '../../../api/types';
import { EmptyState } from '../../../components/EmptyState';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { LoadingState } from '../../../components/LoadingState';
import { useSchemaDownloadMutation } from '../../../data/schema/schema-download-mutation';
import { useSchemaResetMutation } from '../../../data/schema/schema-reset-mutation';
import { useSchemaVersionsQuery } from '../../../data/schema/schema-versions-query';
import { appliedDescriptions, compareDocuments, newestFirst, versionDocument } from '../../../evolution/history';
import { formatDateTime } from '../../../lib/format';
import type { SchemaDocument } from '../../../schema/document';
import { tones } from '../../../tones';
import { DocumentDifferenceList } from './DocumentDifferenceList';

interface VersionHistoryDrawerProps {
  projectId: string;
  opened: boolean;
  onClose: () => void;
  /** The document in the builder now, to say what a reset changes. */
  current: SchemaDocument;
  dirty: boolean;
  onReset: (saved: DraftWithMeta, version: number) => void;
}

/** Every published version, newest first: what it applied, its file, and going back to it. */
export function VersionHistoryDrawer({ projectId, opened, onClose, current, dirty, onReset }: VersionHistoryDrawerProps) {
  const versions = useSchemaVersionsQuery(projectId);
  const download = useSchemaDownloadMutation();
  const [resetting, setResetting] = useState<SchemaVersion | null>(null);
  const list = newestFirst(versions.data ?? []);
  const live = list[0];

  const downloadVersion = (version: number) =>
    download.mutate(
      { projectId, version },
      {
        onSuccess: (file) => notifications.show({ color: 'teal', title: `Downloaded ${file.filename}`, message: `The schema of version ${version}.` }),
        onError: (error) => {
          const { title, lines } = describeError(error);
          notifications.show({ color: 'red', title: `Version ${version} could not be downloaded`, message: [title, ...lines].join(' · ') });
        },
      },
    );

  return (
    <Drawer
      opened={opened}
      onClose={onClose}
      position="right"
      size="lg"
      title={<Title order={2} size="h4">Version history</Title>}
      closeButtonProps={{ 'aria-label': 'Close version history' }}
    >
      <Stack gap="sm">
        <Text size="sm" c="dimmed">
          Each generate publishes a version with its schema document. Resetting copies a version into the draft; the database changes only when
          you generate it.
        </Text>
        {versions.isPending && <LoadingState label="Loading versions…" />}
        {versions.error ? <ErrorAlert error={versions.error} title="Could not load the versions" /> : null}
        {versions.data && list.length === 0 && (
          <EmptyState title="Nothing published yet" icon={<IconHistory size={26} />}>
            The first generate publishes version 1.
          </EmptyState>
        )}
        <Stack gap="xs" component="ol" style={{ listStyle: 'none', margin: 0, padding: 0 }} aria-label="Published versions">
          {list.map((version) => (
            <VersionItem
              key={version.version}
              version={version}
              live={version === live}
              downloading={download.isPending && download.variables?.version === version.version}
              onDownload={() => downloadVersion(version.version)}
              onReset={() => setResetting(version)}
            />
          ))}
        </Stack>
      </Stack>
      {resetting && (
        <ResetModal
          projectId={projectId}
          version={resetting}
          live={live}
          current={current}
          dirty={dirty}
          onClose={() => setResetting(null)}
          onReset={(saved) => {
            setResetting(null);
            onReset(saved, resetting.version);
          }}
        />
      )}
    </Drawer>
  );
}

interface VersionItemProps {
  version: SchemaVersion;
  live: boolean;
  downloading: boolean;
  onDownload: () => void;
  onReset: () => void;
}

function VersionItem({ version, live, downloading, onDownload, onReset }: VersionItemProps) {
  const doc = versionDocument(version);
  const applied = appliedDescriptions(version);
  const tables = doc?.tables.map((t) => t.name) ?? [];
  return (
    <li>
      <Paper withBorder p="sm" data-testid={`version-${version.version}`}>
        <Stack gap={6}>
          <Group justify="space-between" wrap="nowrap" align="flex-start">
            <div>
              <Group gap="xs">
                <Text fw={600}>Version {version.version}</Text>
                {live && (
                  <Badge color={tones.success} variant="filled" size="sm">
                    Live
                  </Badge>
                )}
              </Group>
              <Text size="xs" c="dimmed">
                Published {formatDateTime(version.created_at)}
              </Text>
            </div>
          </Group>
          <Text size="sm">
            {tables.length} {tables.length === 1 ? 'table' : 'tables'}
            {tables.length ? ': ' : ''}
            <span className="mono">{tables.join(', ')}</span>
          </Text>
          {applied.length > 0 ? (
            <details>
              <summary>
                <Text span size="sm">
                  {applied.length} {applied.length === 1 ? 'change' : 'changes'} applied
                </Text>
              </summary>
              <List size="sm" spacing={2} mt={4}>
                {applied.map((line, i) => (
                  <List.Item key={`${i}-${line}`}>{line}</List.Item>
                ))}
              </List>
            </details>
          ) : (
            <Text size="sm" c="dimmed">
              No changes to the database.
            </Text>
          )}
          <Group gap="xs">
            <Button size="xs" variant="default" leftSection={<IconDownload size={14} />} onClick={onDownload} loading={downloading} aria-label={`Download version ${version.version}`}>
              Download
            </Button>
            <Button size="xs" variant="light" leftSection={<IconRestore size={14} />} onClick={onReset} aria-label={`Reset draft to this version (version ${version.version})`}>
              Reset draft to this version
            </Button>
          </Group>
        </Stack>
      </Paper>
    </li>
  );
}

interface ResetModalProps {
  projectId: string;
  version: SchemaVersion;
  live: SchemaVersion | undefined;
  current: SchemaDocument;
  dirty: boolean;
  onClose: () => void;
  onReset: (saved: DraftWithMeta) => void;
}

/** Confirms a reset, naming what the draft loses and what generating it afterwards would drop. */
function ResetModal({ projectId, version, live, current, dirty, onClose, onReset }: ResetModalProps) {
  const reset = useSchemaResetMutation();
  const target = versionDocument(version) ?? { tables: [] };
  const published = versionDocument(live);
  const draftDiff = compareDocuments(current, target);
  const dropped = published && live !== version ? compareDocuments(published, target) : null;
  const losses = dropped ? [...dropped.removedTables.map((t) => `table ${t}`), ...dropped.removedColumns] : [];

  return (
    <Modal opened onClose={onClose} title={`Reset the draft to version ${version.version}?`} size="lg">
      <Stack gap="sm">
        <Text size="sm">
          The draft becomes a copy of version {version.version}. Nothing changes in the database or the API now. Compared with the draft in the
          builder:
        </Text>
        <DocumentDifferenceList diff={draftDiff} sameText={`The draft already has the tables and columns of version ${version.version}.`} />
        {dirty && (
          <Text size="sm" c={tones.warning} fw={600}>
            Your unsaved changes in the builder are lost.
          </Text>
        )}
        {losses.length > 0 && (
          <Alert color="red" variant="light" title="Generating it afterwards deletes data" p="sm">
            <Text size="sm">
              Version {version.version} lacks {losses.length === 1 ? 'this part' : 'these parts'} of the live version {live?.version}, so a generate of the
              reset draft drops {losses.length === 1 ? 'it' : 'them'} with their data (it asks for confirmation first):{' '}
              <span className="mono">{losses.join(', ')}</span>
            </Text>
          </Alert>
        )}
        {reset.error ? <ErrorAlert error={reset.error} title="The draft was not reset" /> : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button
            leftSection={<IconRestore size={16} />}
            loading={reset.isPending}
            onClick={() => reset.mutate({ projectId, version: version.version }, { onSuccess: onReset })}
          >
            Reset the draft
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
