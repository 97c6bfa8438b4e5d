import { Anchor, Group, Loader, Text, Tooltip } from '@mantine/core';
import { IconAlertTriangle, IconDownload, IconFile } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type MouseEvent } from 'react';
import { describeError } from '../../../api/client';
import { formatBytes } from '../../../builder/fileSettings';
import { fetchRecordFile, useRecordFileQuery } from '../../../data/records/record-file-query';
import { recordKeys } from '../../../data/records/keys';
import { fileLabel, isImageFile, storedFiles, type StoredFile } from '../../../grid/files';
import { saveFile } from '../../../lib/saveFile';
import { tones } from '../../../tones';

interface FilePreviewProps {
  projectId: string;
  credential: string;
  file: StoredFile;
  /** The height of an image's preview in pixels. */
  size?: number;
}

// A double-click on a file opens nothing else: the cell around it has its own.
const keepInside = (e: MouseEvent) => e.stopPropagation();

/**
 * One file of a record: an image as a small preview that downloads it, any
 * other file as its name and size. The file is fetched with the
 * credential that reads the record (an <img src> could not send it) and
 * shown from a blob: URL.
 */
export function FilePreview(props: FilePreviewProps) {
  return isImageFile(props.file) ? <ImagePreview {...props} /> : <FileDownload {...props} />;
}

function ImagePreview({ projectId, credential, file, size = 32 }: FilePreviewProps) {
  const blob = useRecordFileQuery(projectId, file.url, credential);
  const url = useObjectUrl(blob.data);
  if (blob.error) return <FileDownload projectId={projectId} credential={credential} file={file} problem={describeError(blob.error).title} />;
  if (!url) return <Loader size={size >= 32 ? 'sm' : 'xs'} aria-label={`Loading ${file.name}`} />;
  return (
    <Anchor href={url} download={file.name} title={`Download ${fileLabel(file)}`} onDoubleClick={keepInside} style={{ display: 'inline-block', lineHeight: 0 }}>
      <img
        src={url}
        alt={file.name}
        height={size}
        data-testid="file-preview"
        style={{ maxWidth: size * 3, objectFit: 'cover', borderRadius: 'var(--mantine-radius-xs)', border: '1px solid var(--mantine-color-gray-3)' }}
      />
    </Anchor>
  );
}

function FileDownload({ projectId, credential, file, problem }: FilePreviewProps & { problem?: string }) {
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(problem);
  const download = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const blob = await queryClient.fetchQuery({
        queryKey: recordKeys.file(projectId, file.url, credential),
        queryFn: ({ signal }) => fetchRecordFile(file.url, credential, signal),
        staleTime: Infinity,
      });
      saveFile(blob, file.name);
    } catch (e) {
      setError(describeError(e).title);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Group gap={4} wrap="nowrap" style={{ minWidth: 0 }}>
      {error ? (
        <Tooltip label={error}>
          <IconAlertTriangle size={14} color={tones.warning} aria-label={`${file.name}: ${error}`} role="img" />
        </Tooltip>
      ) : busy ? (
        <Loader size={14} aria-label={`Downloading ${file.name}`} />
      ) : (
        <IconFile size={14} aria-hidden />
      )}
      <Anchor
        component="button"
        type="button"
        size="sm"
        onClick={() => void download()}
        onDoubleClick={keepInside}
        title={`Download ${fileLabel(file)}`}
        style={{ overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap', minWidth: 0 }}
      >
        {file.name}
      </Anchor>
      <Text size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
        {formatBytes(file.size)}
      </Text>
      <IconDownload size={12} aria-hidden opacity={0.6} />
    </Group>
  );
}

/** A blob: URL of the blob while it is shown, revoked when it is not. */
function useObjectUrl(blob: Blob | undefined): string | undefined {
  const [url, setUrl] = useState<{ blob: Blob; url: string } | undefined>();
  useEffect(() => {
    if (!blob) return;
    const made = URL.createObjectURL(blob);
    setUrl({ blob, url: made });
    return () => URL.revokeObjectURL(made);
  }, [blob]);
  return url && url.blob === blob ? url.url : undefined;
}

interface FileListProps {
  projectId: string;
  credential: string;
  /** A record's value of a file or files column. */
  value: unknown;
  size?: number;
  /** Show at most this many, then "+n more". */
  limit?: number;
}

/** The files of a record's value, each with its preview. */
export function FileList({ projectId, credential, value, size, limit }: FileListProps) {
  const files = storedFiles(value);
  const shown = limit === undefined ? files : files.slice(0, limit);
  if (files.length === 0) return null;
  return (
    <Group gap={6} wrap={limit === undefined ? 'wrap' : 'nowrap'} style={{ minWidth: 0 }}>
      {shown.map((file) => (
        <FilePreview key={file.url} projectId={projectId} credential={credential} file={file} size={size} />
      ))}
      {files.length > shown.length && (
        <Text size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
          +{files.length - shown.length} more
        </Text>
      )}
    </Group>
  );
}
