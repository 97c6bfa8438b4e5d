import { ActionIcon, Badge, Collapse, Group, List, NativeSelect, Paper, Text, TextInput } from '@mantine/core';
import { IconArrowDown, IconArrowUp, IconChevronDown, IconChevronRight, IconKey, IconLock, IconTrash } from '@tabler/icons-react';
import { useState, type Dispatch } from 'react';
import { readOnlyReason, type BuilderAction, type DraftColumn, type DraftTable } from '../../../builder/state';
import { formatBytes } from '../../../builder/fileSettings';
import { problemAt, unclaimedProblems, type SchemaProblems } from '../../../builder/validation';
import { COLUMN_TYPES, TYPE_LABELS } from '../../../schema/document';
import { ColumnConstraints, CONSTRAINT_FIELDS } from './ColumnConstraints';
import { tones } from '../../../tones';
import layout from './SchemaPage.module.css';

interface ColumnRowProps {
  column: DraftColumn;
  index: number;
  count: number;
  table: DraftTable;
  tables: DraftTable[];
  path: string;
  problems: SchemaProblems;
  dispatch: Dispatch<BuilderAction>;
}

const typeOptions = COLUMN_TYPES.map((t) => ({ value: t, label: TYPE_LABELS[t] }));

/** One user column: name and type in a row, its constraints folded below. */
export function ColumnRow(props: ColumnRowProps) {
  const reason = readOnlyReason(props.table, props.column);
  return reason ? <ReadOnlyColumnRow {...props} reason={reason} /> : <EditableColumnRow {...props} />;
}

function EditableColumnRow({ column, index, count, table, tables, path, problems, dispatch }: ColumnRowProps) {
  const [open, setOpen] = useState(false);
  const tableKey = table.key;
  const columnKey = column.key;
  const label = column.name || `column ${index + 1}`;
  // Folded, the row lists every problem its two visible fields do not show;
  // unfolded, only those no constraint field shows.
  const hiddenProblems = unclaimedProblems(problems, path, open ? ['name', 'type', ...CONSTRAINT_FIELDS] : ['name', 'type']);
  const options = typeOptions.some((o) => o.value === column.type) ? typeOptions : [...typeOptions, { value: column.type, label: column.type }];

  return (
    <Paper withBorder p="xs" data-testid={`column-${column.name}`} data-path={path} style={hiddenProblems.length ? { borderColor: 'var(--mantine-color-red-8)' } : undefined}>
      <div className={layout.columnRow}>
        <ActionIcon
          variant="subtle"
          color="gray.8"
          mt={4}
          onClick={() => setOpen((o) => !o)}
          aria-expanded={open}
          aria-label={`${open ? 'Hide' : 'Show'} constraints of ${label}`}
        >
          {open ? <IconChevronDown size={16} /> : <IconChevronRight size={16} />}
        </ActionIcon>
        <TextInput
          aria-label={`Column ${index + 1} name`}
          placeholder="column_name"
          value={column.name}
          onChange={(e) => dispatch({ type: 'renameColumn', tableKey, columnKey, name: e.currentTarget.value })}
          error={problemAt(problems, `${path}.name`)}
          className={layout.columnName}
          size="sm"
          autoComplete="off"
          spellCheck={false}
        />
        <NativeSelect
          aria-label={`Column ${index + 1} type`}
          data={options}
          value={column.type}
          onChange={(e) => dispatch({ type: 'setColumnType', tableKey, columnKey, columnType: e.currentTarget.value })}
          error={problemAt(problems, `${path}.type`)}
          size="sm"
          w={118}
          style={{ flexShrink: 0 }}
        />
        <ActionIcon
          variant="subtle"
          color="gray.8"
          mt={4}
          disabled={index === 0}
          onClick={() => dispatch({ type: 'moveColumn', tableKey, columnKey, toIndex: index - 1 })}
          aria-label={`Move ${label} up`}
        >
          <IconArrowUp size={16} />
        </ActionIcon>
        <ActionIcon
          variant="subtle"
          color="gray.8"
          mt={4}
          disabled={index === count - 1}
          onClick={() => dispatch({ type: 'moveColumn', tableKey, columnKey, toIndex: index + 1 })}
          aria-label={`Move ${label} down`}
        >
          <IconArrowDown size={16} />
        </ActionIcon>
        <ActionIcon
          variant="subtle"
          color={tones.danger}
          mt={4}
          onClick={() => dispatch({ type: 'deleteColumn', tableKey, columnKey })}
          aria-label={`Delete column ${label}`}
        >
          <IconTrash size={16} />
        </ActionIcon>
      </div>
      <ColumnSummary column={column} />
      {hiddenProblems.length > 0 && (
        <List size="xs" c={tones.danger} mt={4} ml={34}>
          {hiddenProblems.map((m) => (
            <List.Item key={m}>{m}</List.Item>
          ))}
        </List>
      )}
      <Collapse in={open}>
        <ColumnConstraints column={column} table={table} tables={tables} path={path} problems={problems} dispatch={dispatch} />
      </Collapse>
    </Paper>
  );
}

/**
 * A column of a fronted database that the builder shows but does not edit:
 * a passthrough column (with its database type) or the table's own key.
 */
function ReadOnlyColumnRow({ column, index, count, table, path, problems, dispatch, reason }: ColumnRowProps & { reason: string }) {
  const passthrough = column.type === 'passthrough';
  const label = column.name || `column ${index + 1}`;
  const rowProblems = unclaimedProblems(problems, path, []);
  return (
    <Paper withBorder p="xs" bg="gray.0" data-testid={`column-${column.name}`} data-readonly="true" data-path={path}>
      <Group gap={6} wrap="nowrap" justify="space-between" align="flex-start">
        <Group gap={6} wrap="wrap" style={{ minWidth: 0 }}>
          {passthrough ? <IconLock size={14} aria-hidden /> : <IconKey size={14} aria-hidden />}
          <Text size="sm" className="mono" fw={600}>
            {column.name}
          </Text>
          <Badge size="xs" variant="outline" color="gray.8" tt="none">
            {passthrough ? 'read-only' : 'primary key'}
          </Badge>
          <Text size="xs" className="mono" c="dimmed" data-testid={`column-${column.name}-db-type`}>
            {passthrough ? `database type ${column.pg_type || 'unknown'}` : column.type}
          </Text>
        </Group>
        <Group gap={0} wrap="nowrap">
          <ActionIcon
            variant="subtle"
            color="gray.8"
            disabled={index === 0}
            onClick={() => dispatch({ type: 'moveColumn', tableKey: table.key, columnKey: column.key, toIndex: index - 1 })}
            aria-label={`Move ${label} up`}
          >
            <IconArrowUp size={16} />
          </ActionIcon>
          <ActionIcon
            variant="subtle"
            color="gray.8"
            disabled={index === count - 1}
            onClick={() => dispatch({ type: 'moveColumn', tableKey: table.key, columnKey: column.key, toIndex: index + 1 })}
            aria-label={`Move ${label} down`}
          >
            <IconArrowDown size={16} />
          </ActionIcon>
        </Group>
      </Group>
      <Text size="xs" c="dimmed" mt={4} ml={20}>
        {reason}
        {column.required ? ' The database requires a value.' : ''}
        {column.description ? ` ${column.description}` : ''}
      </Text>
      {rowProblems.length > 0 && (
        <List size="xs" c={tones.danger} mt={4} ml={20}>
          {rowProblems.map((m) => (
            <List.Item key={m}>{m}</List.Item>
          ))}
        </List>
      )}
    </Paper>
  );
}

function ColumnSummary({ column }: { column: DraftColumn }) {
  const tags: string[] = [];
  if (column.required) tags.push('required');
  if (column.unique) tags.push('unique');
  if (column.references) tags.push(`→ ${column.references.table}`);
  if (column.default !== undefined) tags.push(`default ${JSON.stringify(column.default)}`);
  if (column.index) tags.push('index');
  if (column.searchable) tags.push('searchable');
  if (column.values?.length) tags.push(`${column.values.length} values`);
  if (column.max_size !== undefined && column.max_size > 0) tags.push(`≤ ${formatBytes(column.max_size)} each`);
  if (column.mime_types?.length) tags.push(column.mime_types.join(', '));
  if (column.max_files !== undefined) tags.push(`up to ${column.max_files} files`);
  if (column.renamed_from) tags.push(`was ${column.renamed_from}`);
  if (column.pg_type) tags.push(`database type ${column.pg_type}`);
  if (!tags.length) return null;
  return (
    <Group gap={4} mt={4} ml={34}>
      {tags.map((tag) => (
        <Badge key={tag} size="xs" variant="outline" color="gray.8" tt="none">
          {tag}
        </Badge>
      ))}
    </Group>
  );
}
