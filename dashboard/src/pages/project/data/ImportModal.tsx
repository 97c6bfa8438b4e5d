import { Alert, Button, FileInput, Group, List, Modal, NativeSelect, ScrollArea, SimpleGrid, Stack, Table, Text, VisuallyHidden } from '@mantine/core';
import { IconFileImport } from '@tabler/icons-react';
import { useMemo, useState } from 'react';
import { isApiError } from '../../../api/client';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { useRecordsBulkCreateMutation } from '../../../data/records/records-bulk-create-mutation';
import {
  ImportFileError,
  MAX_IMPORT_ROWS,
  importBodies,
  importableFields,
  problemsFromDetails,
  readImportText,
  suggestMapping,
  type ImportFile,
  type ImportMapping,
  type RowProblem,
} from '../../../grid/importRows';
import type { SchemaTable } from '../../../schema/document';
import { tones } from '../../../tones';

interface ImportModalProps {
  projectId: string;
  table: SchemaTable;
  credential: string;
  opened: boolean;
  onClose: () => void;
  onImported: (count: number) => void;
}

const PREVIEW_ROWS = 5;

/**
 * Import of a CSV or JSON file: pick it, map its columns to the table's
 * fields, look at the first rows, and send every row in one bulk create.
 * The server writes all of them or none; a refusal lists each row's problem.
 */
export function ImportModal({ projectId, table, credential, opened, onClose, onImported }: ImportModalProps) {
  const [file, setFile] = useState<File | null>(null);
  const [contents, setContents] = useState<ImportFile | undefined>();
  const [readError, setReadError] = useState<string | undefined>();
  const [mapping, setMapping] = useState<ImportMapping>({});
  const [problems, setProblems] = useState<RowProblem[]>([]);
  const create = useRecordsBulkCreateMutation();
  const fields = useMemo(() => importableFields(table), [table]);

  const reset = () => {
    setFile(null);
    setContents(undefined);
    setReadError(undefined);
    setMapping({});
    setProblems([]);
    create.reset();
  };
  const close = () => {
    reset();
    onClose();
  };

  const pick = async (picked: File | null) => {
    reset();
    setFile(picked);
    if (!picked) return;
    try {
      const read = readImportText(picked.name, await picked.text());
      if (read.rows.length === 0) throw new ImportFileError('the file has no rows');
      if (read.rows.length > MAX_IMPORT_ROWS) throw new ImportFileError(`the file has ${read.rows.length} rows; one import takes at most ${MAX_IMPORT_ROWS}`);
      setContents(read);
      setMapping(suggestMapping(read.headers, table));
    } catch (error) {
      setReadError(error instanceof ImportFileError ? error.message : String(error));
    }
  };

  const submit = () => {
    if (!contents) return;
    const { bodies, problems: found } = importBodies(contents, mapping, table);
    setProblems(found);
    if (found.length) return;
    create.mutate(
      { projectId, table: table.name, records: bodies, credential },
      {
        onSuccess: (rows) => {
          onImported(rows.length);
          close();
        },
        onError: (error) => {
          if (isApiError(error) && Object.keys(error.details).length) setProblems(problemsFromDetails(error.details));
        },
      },
    );
  };

  const mapped = Object.entries(mapping).filter(([, field]) => field);
  const problemRows = new Set(problems.map((p) => p.row));
  const previewIndexes = contents ? [...new Set([...contents.rows.keys()].slice(0, PREVIEW_ROWS).concat([...problemRows].filter((r) => r >= 0)))].sort((a, b) => a - b) : [];

  return (
    <Modal opened={opened} onClose={close} title={`Import into ${table.name}`} size="xl">
      <Stack gap="sm">
        <FileInput
          label="CSV or JSON file"
          description="CSV with a header row, a JSON array of objects, or one JSON object per line. Every row is created, or none."
          placeholder="Choose a file"
          accept=".csv,.json,.ndjson,text/csv,application/json"
          value={file}
          onChange={(f) => void pick(f)}
          leftSection={<IconFileImport size={16} aria-hidden />}
          clearable
          clearButtonProps={{ 'aria-label': 'Remove the file' }}
        />
        {readError && (
          <Alert color={tones.danger} title="The file cannot be read">
            {readError}
          </Alert>
        )}
        {contents && (
          <>
            <Text size="sm" fw={600}>
              Columns ({contents.rows.length} rows in the file)
            </Text>
            <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="xs">
              {contents.headers.map((header) => (
                <NativeSelect
                  key={header}
                  label={`File column "${header}"`}
                  data={[{ value: '', label: 'Skip' }, ...fields.map((f) => ({ value: f, label: `→ ${f}` }))]}
                  value={mapping[header] ?? ''}
                  onChange={(e) => {
                    const field = e.currentTarget.value;
                    setMapping((m) => ({ ...m, [header]: field }));
                    setProblems([]);
                  }}
                />
              ))}
            </SimpleGrid>
            <Text size="sm" fw={600}>
              Preview
            </Text>
            <ScrollArea type="auto">
              <Table withTableBorder withColumnBorders verticalSpacing={4} fz="sm" aria-label="Import preview" data-testid="import-preview">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Row</Table.Th>
                    {mapped.map(([header, field]) => (
                      <Table.Th key={header}>{field}</Table.Th>
                    ))}
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {previewIndexes.map((index) => {
                    const rowProblems = problems.filter((p) => p.row === index);
                    return (
                      <Table.Tr
                        key={index}
                        bg={rowProblems.length ? 'var(--mantine-color-red-light)' : undefined}
                        data-problem={rowProblems.length ? 'true' : undefined}
                        data-testid={`import-row-${index + 1}`}
                      >
                        <Table.Td fw={rowProblems.length ? 700 : undefined}>
                          {index + 1}
                          {rowProblems.length ? <VisuallyHidden> (has a problem)</VisuallyHidden> : null}
                        </Table.Td>
                        {mapped.map(([header, field]) => (
                          <Table.Td
                            key={header}
                            className="mono"
                            title={rowProblems.find((p) => p.field === field)?.message}
                            style={rowProblems.some((p) => p.field === field) ? { outline: `2px solid ${tones.danger}`, outlineOffset: -2 } : undefined}
                          >
                            {previewText(contents.rows[index]?.[header])}
                          </Table.Td>
                        ))}
                      </Table.Tr>
                    );
                  })}
                </Table.Tbody>
              </Table>
            </ScrollArea>
          </>
        )}
        {problems.length > 0 && (
          <Alert
            color={tones.danger}
            title={`Nothing was imported: ${countOf(problems.length, 'problem')}${
              problemRows.size ? ` in ${countOf([...problemRows].filter((r) => r >= 0).length, 'row')}` : ''
            }${create.isError ? ', found by the server' : '; fix them first'}`}
            role="alert"
          >
            <List size="sm" data-testid="import-problems">
              {problems.map((p) => (
                <List.Item key={`${p.row}.${p.field}`}>
                  {p.row >= 0 ? `Row ${p.row + 1}` : 'File'}
                  {p.field ? ` · ${p.field}` : ''}: {p.message}
                </List.Item>
              ))}
            </List>
          </Alert>
        )}
        {create.error && problems.length === 0 ? <ErrorAlert error={create.error} title="Nothing was imported" /> : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={close}>
            Cancel
          </Button>
          <Button onClick={submit} loading={create.isPending} disabled={!contents || mapped.length === 0}>
            {contents ? `Import ${contents.rows.length} rows` : 'Import'}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

function countOf(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function previewText(value: unknown): string {
  if (value === undefined) return '';
  if (value === null) return 'null';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}
