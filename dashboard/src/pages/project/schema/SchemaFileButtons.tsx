import { Alert, Button, FileButton, Group, Modal, Stack, Text, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconDownload, IconUpload } from '@tabler/icons-react';
import { useRef, useState } from 'react';
import { describeError } from '../../../api/client';
import type { DraftWithMeta } from '../../../api/types';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { useSchemaDownloadMutation } from '../../../data/schema/schema-download-mutation';
import { useSchemaImportMutation } from '../../../data/schema/schema-import-mutation';
import { compareDocuments } from '../../../evolution/history';
import { MAX_SCHEMA_FILE_BYTES, parseSchemaFile } from '../../../evolution/schemaFile';
import type { SchemaDocument } from '../../../schema/document';
import { tones } from '../../../tones';
import { DocumentDifferenceList } from './DocumentDifferenceList';
import { RoleGate } from '../../../components/RoleGate';

interface SchemaFileButtonsProps {
  projectId: string;
  /** The document in the builder now, to say what an upload changes. */
  current: SchemaDocument;
  dirty: boolean;
  onUploaded: (saved: DraftWithMeta, filename: string) => void;
}

interface PickedFile {
  name: string;
  document: SchemaDocument;
}

/**
 * Download the draft as schema.json (GET /schema/export) and upload such a
 * file back as the draft (PUT /schema), after saying what it replaces.
 */
export function SchemaFileButtons({ projectId, current, dirty, onUploaded }: SchemaFileButtonsProps) {
  const download = useSchemaDownloadMutation();
  const upload = useSchemaImportMutation();
  const [picked, setPicked] = useState<PickedFile | null>(null);
  const [fileError, setFileError] = useState<{ name: string; message: string } | null>(null);
  const resetInput = useRef<() => void>(null);

  const downloadDraft = () =>
    download.mutate(
      { projectId },
      {
        onSuccess: (file) =>
          notifications.show({
            color: dirty ? 'orange' : 'teal',
            title: `Downloaded ${file.filename}`,
            message: dirty ? 'It holds the saved draft: your unsaved changes are not in it. Save, then download again to include them.' : 'The saved draft, as the server stores it.',
          }),
        onError: (error) => {
          const { title, lines } = describeError(error);
          notifications.show({ color: 'red', title: 'The schema could not be downloaded', message: [title, ...lines].join(' · ') });
        },
      },
    );

  const pick = async (file: File | null) => {
    resetInput.current?.();
    if (!file) return;
    upload.reset();
    setFileError(null);
    if (file.size > MAX_SCHEMA_FILE_BYTES) {
      setFileError({ name: file.name, message: 'The file is larger than 1 MiB, the most the server takes.' });
      return;
    }
    const parsed = parseSchemaFile(await file.text());
    if (!parsed.ok) {
      setFileError({ name: file.name, message: parsed.error });
      return;
    }
    setPicked({ name: file.name, document: parsed.document });
  };

  const confirm = () => {
    if (!picked) return;
    upload.mutate(
      { projectId, document: picked.document },
      {
        onSuccess: (saved) => {
          onUploaded(saved, picked.name);
          setPicked(null);
        },
      },
    );
  };

  const close = () => {
    setPicked(null);
    upload.reset();
  };

  return (
    <>
      <Tooltip label="The saved draft as a schema.json file">
        <Button variant="default" leftSection={<IconDownload size={16} />} onClick={downloadDraft} loading={download.isPending}>
          Download schema
        </Button>
      </Tooltip>
      <RoleGate need="developer" mode="hide">
        <FileButton onChange={(file) => void pick(file)} accept="application/json,.json" resetRef={resetInput}>
          {(props) => (
            <Button variant="default" leftSection={<IconUpload size={16} />} {...props}>
              Upload schema
            </Button>
          )}
        </FileButton>
      </RoleGate>
      <Modal opened={Boolean(fileError)} onClose={() => setFileError(null)} title={`${fileError?.name ?? 'The file'} cannot be uploaded`}>
        <Stack gap="sm">
          <Text size="sm">{fileError?.message}</Text>
          <Text size="sm">The draft is unchanged.</Text>
          <Group justify="flex-end">
            <Button onClick={() => setFileError(null)}>Close</Button>
          </Group>
        </Stack>
      </Modal>
      <Modal opened={Boolean(picked)} onClose={close} title={`Replace the draft with ${picked?.name ?? 'this file'}?`} size="lg">
        {picked && (
          <Stack gap="sm">
            <Text size="sm">
              The file becomes the saved draft. Nothing changes in the database or the API until you generate. Compared with the draft in the
              builder:
            </Text>
            <DocumentDifferenceList diff={compareDocuments(current, picked.document)} sameText="It holds the same tables and columns as the draft." />
            {dirty && (
              <Alert color="orange" variant="light" p="xs">
                <Text size="sm" c={tones.warning}>
                  Your unsaved changes in the builder are lost.
                </Text>
              </Alert>
            )}
            {upload.error ? <ErrorAlert error={upload.error} title="The file was not uploaded; the draft is unchanged" /> : null}
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>
                Cancel
              </Button>
              <Button leftSection={<IconUpload size={16} />} onClick={confirm} loading={upload.isPending}>
                Replace the draft
              </Button>
            </Group>
          </Stack>
        )}
      </Modal>
    </>
  );
}
