import { ActionIcon, Group, NativeSelect, Table, Text, TextInput } from '@mantine/core';
import { IconArrowUpRight } from '@tabler/icons-react';
import { useEffect, useRef, useState, type KeyboardEvent, type MouseEvent } from 'react';
import { Link } from 'react-router';
import { isApiError } from '../../../api/client';
import { useRecordSaveMutation } from '../../../data/records/record-save-mutation';
import type { RecordRow } from '../../../data/records/records-query';
import { cellText, editorText, parseCell } from '../../../grid/cells';
import { isEditable, labelColumns, recordLabel, type GridColumn } from '../../../grid/columns';
import { traitsOf, type SchemaDocument } from '../../../schema/document';
import classes from './DataGrid.module.css';
import { FileList } from './FilePreview';
import { ReferencePicker } from './ReferencePicker';

interface GridCellProps {
  projectId: string;
  tableName: string;
  schema: SchemaDocument;
  credential: string;
  column: GridColumn;
  row: RecordRow;
  canWrite: boolean;
  /** The embedded referenced record, when the list included it. */
  referenced?: Record<string, unknown> | null;
}

/**
 * One cell of the Data grid. Double-click or Enter opens an editor for the
 * column's type; Enter (or leaving the field) saves the one field with
 * PATCH, Escape cancels. The column's rules are checked before sending, and
 * the server's word on the field (a 400's details, a unique conflict) is
 * shown under the editor, which stays open until it is fixed or cancelled.
 */
export function GridCell({ projectId, tableName, schema, credential, column, row, canWrite, referenced }: GridCellProps) {
  const [editing, setEditing] = useState(false);
  const cellRef = useRef<HTMLTableCellElement>(null);
  const wasEditing = useRef(false);
  const value = row[column.name];
  const editable = canWrite && isEditable(column) && column.column !== undefined;

  useEffect(() => {
    // Back to the cell after an edit, so the keyboard carries on from there.
    if (wasEditing.current && !editing) cellRef.current?.focus();
    wasEditing.current = editing;
  }, [editing]);

  const shown = cellText(value, column.type);
  const targetTable = column.references ? schema.tables.find((t) => t.name === column.references) : undefined;

  const onKeyDown = (e: KeyboardEvent<HTMLTableCellElement>) => {
    if (e.target !== e.currentTarget) return;
    const next = neighbourCell(e.currentTarget, e.key);
    if (next) {
      e.preventDefault();
      next.focus();
      return;
    }
    if (!editable) return;
    if (e.key === 'Enter' || e.key === 'F2') {
      e.preventDefault();
      setEditing(true);
    }
  };

  if (editing && column.column) {
    return (
      <Table.Td className={classes.editing} ref={cellRef}>
        <CellEditor
          projectId={projectId}
          tableName={tableName}
          credential={credential}
          column={column}
          row={row}
          targetTable={targetTable}
          referenced={referenced}
          onDone={() => setEditing(false)}
        />
      </Table.Td>
    );
  }

  let content = (
    <Text size="sm" truncate="end" className={column.type === 'decimal' || column.type === 'number' || column.type === 'integer' ? classes.mono : undefined}>
      {shown.text}
    </Text>
  );
  if (traitsOf(column.type)?.upload && value !== null && value !== undefined) {
    // Files are changed in the record form (Edit); the cell shows and downloads them.
    content = <FileList projectId={projectId} credential={credential} value={value} size={28} limit={3} />;
  } else if (column.references && value !== null && value !== undefined) {
    const label = referenced ? recordLabel(targetTable, referenced) : `#${String(value)}`;
    // The label is text, so a double-click edits the reference as in any
    // cell; following it is the arrow beside it (issue 37, item 5).
    content = (
      <Group gap={4} wrap="nowrap">
        <Text size="sm" truncate="end">
          {label}
        </Text>
        <ActionIcon
          component={Link}
          variant="subtle"
          size="sm"
          to={`/projects/${projectId}/data/${column.references}?filter[id]=${encodeURIComponent(String(value))}`}
          aria-label={`Open ${column.references} ${label}`}
          title={`Open ${column.references} ${label}`}
          onDoubleClick={(e: MouseEvent) => e.stopPropagation()}
        >
          <IconArrowUpRight size={14} aria-hidden />
        </ActionIcon>
      </Group>
    );
  }
  return (
    <Table.Td
      ref={cellRef}
      className={classes.cell}
      title={shown.title}
      // Editable cells are in the Tab order; arrow keys reach every cell.
      tabIndex={editable ? 0 : -1}
      data-column={column.name}
      aria-label={`${column.name} of record ${String(row.id)}: ${shown.text}${editable ? '. Press Enter to edit' : ''}`}
      onDoubleClick={editable ? () => setEditing(true) : undefined}
      onKeyDown={onKeyDown}
    >
      {content}
    </Table.Td>
  );
}

/** The data cell an arrow key moves to from `cell`, if there is one. */
function neighbourCell(cell: HTMLTableCellElement, key: string): HTMLElement | null {
  const isCell = (el: Element | null | undefined): el is HTMLElement => el instanceof HTMLElement && el.dataset.column !== undefined;
  const row = cell.parentElement;
  const column = cell.dataset.column ?? '';
  const inRow = (tr: Element | null | undefined) => (tr ? tr.querySelector<HTMLElement>(`td[data-column="${CSS.escape(column)}"]`) : null);
  switch (key) {
    case 'ArrowRight':
      return isCell(cell.nextElementSibling) ? cell.nextElementSibling : null;
    case 'ArrowLeft':
      return isCell(cell.previousElementSibling) ? cell.previousElementSibling : null;
    case 'ArrowDown':
      return inRow(row?.nextElementSibling);
    case 'ArrowUp':
      return inRow(row?.previousElementSibling);
    default:
      return null;
  }
}

interface CellEditorProps {
  projectId: string;
  tableName: string;
  credential: string;
  column: GridColumn;
  row: RecordRow;
  targetTable: SchemaDocument['tables'][number] | undefined;
  referenced?: Record<string, unknown> | null;
  onDone: () => void;
}

function CellEditor({ projectId, tableName, credential, column, row, targetTable, referenced, onDone }: CellEditorProps) {
  const schemaColumn = column.column!;
  const original = editorText(row[column.name], column.type);
  const [text, setText] = useState(original);
  const [localError, setLocalError] = useState<string | undefined>();
  const save = useRecordSaveMutation();
  const serverError = isApiError(save.error)
    ? (save.error.details[column.field] ?? save.error.details[column.name] ?? save.error.message)
    : save.error
      ? String(save.error)
      : undefined;
  const error = localError ?? serverError;
  const label = `${column.name} of record ${String(row.id)}`;

  const send = (next: unknown) => {
    save.mutate({ projectId, table: tableName, id: row.id, values: { [column.field]: next }, credential }, { onSuccess: onDone });
  };
  const commit = (raw: string) => {
    if (save.isPending) return;
    if (raw === original && !save.error) return onDone();
    const parsed = parseCell(schemaColumn, raw);
    if ('error' in parsed) {
      setLocalError(`${column.name} ${parsed.error}`);
      return;
    }
    setLocalError(undefined);
    send(parsed.value);
  };
  const keys = (e: KeyboardEvent<HTMLElement>) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      onDone();
    } else if (e.key === 'Enter' && !(column.type === 'json' && e.shiftKey)) {
      e.preventDefault();
      commit(text);
    }
  };

  if (column.references) {
    return (
      <ReferencePicker
        projectId={projectId}
        credential={credential}
        target={{ table: column.references, textColumns: labelColumns(targetTable), idIsInteger: (targetTable?.id_type ?? 'integer') === 'integer' }}
        targetTable={targetTable}
        label={label}
        value={(row[column.name] as string | number | null | undefined) ?? null}
        currentLabel={referenced ? recordLabel(targetTable, referenced) : undefined}
        required={Boolean(schemaColumn.required)}
        error={error}
        onPick={(id) => (id === row[column.name] ? onDone() : send(id))}
        onCancel={onDone}
      />
    );
  }
  if (column.type === 'boolean' || column.type === 'enum') {
    const choices = column.type === 'boolean' ? ['true', 'false'] : (schemaColumn.values ?? []);
    return (
      <NativeSelect
        aria-label={label}
        size="xs"
        autoFocus
        data={[{ value: '', label: schemaColumn.required ? 'Choose…' : 'null' }, ...choices.map((c) => ({ value: c, label: c }))]}
        value={text}
        error={error}
        onChange={(e) => {
          setText(e.currentTarget.value);
          commit(e.currentTarget.value);
        }}
        onKeyDown={keys}
        onBlur={() => !save.isPending && !error && onDone()}
      />
    );
  }
  return (
    <TextInput
      aria-label={label}
      size="xs"
      autoFocus
      value={text}
      error={error}
      readOnly={save.isPending}
      className={column.type === 'decimal' ? classes.mono : undefined}
      inputMode={column.type === 'decimal' || column.type === 'number' ? 'decimal' : column.type === 'integer' ? 'numeric' : undefined}
      type={column.type === 'date' ? 'date' : 'text'}
      placeholder={column.type === 'timestamp' ? '2026-01-02T03:04:05Z' : undefined}
      onChange={(e) => {
        setText(e.currentTarget.value);
        setLocalError(undefined);
      }}
      onKeyDown={keys}
      // Leaving the field saves, unless a problem is shown: it waits to be fixed or cancelled.
      onBlur={() => !error && commit(text)}
    />
  );
}
