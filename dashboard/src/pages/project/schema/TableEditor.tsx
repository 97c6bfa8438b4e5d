import { Alert, Button, Group, List, NativeSelect, NumberInput, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import type { Dispatch } from 'react';
import type { BuilderAction, DraftTable } from '../../../builder/state';
import { problemAt, unclaimedProblems, type SchemaProblems } from '../../../builder/validation';
import { ColumnList } from './ColumnList';
import { PermissionsEditor } from './PermissionsEditor';
import { RelationshipAdder } from './RelationshipAdder';
import { tones } from '../../../tones';
import { CACHE_MAX_AGE_MAX, CACHE_MAX_AGE_MIN, type EmailVerification } from '../../../schema/document';

interface TableEditorProps {
  table: DraftTable;
  tableIndex: number;
  tables: DraftTable[];
  problems: SchemaProblems;
  dispatch: Dispatch<BuilderAction>;
  onDeleteRequest: () => void;
}

const TABLE_FIELDS = ['name', 'auth', 'email_verification', 'junction', 'realtime', 'cache', 'id_type', 'description', 'permissions', 'owner_column', 'columns'];

/** Everything about one table: name, options, columns, relationships, permissions. */
export function TableEditor({ table, tableIndex, tables, problems, dispatch, onDeleteRequest }: TableEditorProps) {
  const at = `tables[${tableIndex}]`;
  const others = unclaimedProblems(problems, at, TABLE_FIELDS);
  const tableKey = table.key;
  const authProblem = problemAt(problems, `${at}.auth`);
  const junctionProblem = problemAt(problems, `${at}.junction`);
  const realtimeProblem = problemAt(problems, `${at}.realtime`);
  // A fronted table may still carry the flag (an imported document): the switch
  // stays usable to turn it off, never on.
  const realtimeLocked = Boolean(table.external) && !table.realtime;
  const realtimeNoteId = `${tableKey}-realtime-note`;
  const realtimeAboutId = `${tableKey}-realtime-about`;
  // Both paths (the rule and the number) show under the one field.
  const cacheProblem = problemAt(problems, `${at}.cache.max_age`) ?? problemAt(problems, `${at}.cache`);
  const publicRead = table.permissions?.read === 'public';

  return (
    <Stack gap="md" aria-label={`Table ${table.name}`} data-path={at}>
      <Group justify="space-between" align="flex-end" wrap="nowrap">
        <TextInput
          label="Table name"
          value={table.name}
          onChange={(e) => dispatch({ type: 'renameTable', tableKey, name: e.currentTarget.value })}
          error={problemAt(problems, `${at}.name`)}
          description={table.renamed_from ? `Renamed from ${table.renamed_from}: its data is kept` : undefined}
          style={{ flex: 1 }}
          autoComplete="off"
          spellCheck={false}
        />
        <Button variant="subtle" color={tones.danger} leftSection={<IconTrash size={16} />} onClick={onDeleteRequest}>
          Delete table
        </Button>
      </Group>

      {others.length > 0 && (
        <Alert color="red" variant="light" title="Also to fix in this table">
          <List size="sm">
            {others.map((message) => (
              <List.Item key={message}>{message}</List.Item>
            ))}
          </List>
        </Alert>
      )}

      {/* One switch a line: the panel is narrow, and each explains itself. */}
      <Stack gap="sm">
        <Stack gap={4}>
          <Switch
            label="Auth table"
            description="End users register and log in with its email and password columns"
            checked={Boolean(table.auth)}
            onChange={(e) => dispatch({ type: 'setTableOptions', tableKey, options: { auth: e.currentTarget.checked } })}
            aria-invalid={authProblem ? true : undefined}
            aria-describedby={authProblem ? `${tableKey}-auth-problem` : undefined}
          />
          {authProblem && (
            <Text id={`${tableKey}-auth-problem`} size="sm" c="var(--mantine-color-error)">
              {authProblem}
            </Text>
          )}
        </Stack>
        {/* Shown also on a table that lost its auth flag, so the setting can be removed. */}
        {(table.auth || table.email_verification !== undefined) && (
          <NativeSelect
            label="E-mail verification"
            description="Optional: register mails a link to confirm the address. Required: no sign-in until the address is confirmed"
            data={[
              { value: 'off', label: 'Off' },
              { value: 'optional', label: 'Optional' },
              { value: 'required', label: 'Required' },
            ]}
            value={table.email_verification ?? 'off'}
            onChange={(e) => {
              const v = e.currentTarget.value as EmailVerification;
              dispatch({ type: 'setTableOptions', tableKey, options: { email_verification: v === 'off' ? undefined : v } });
            }}
            error={problemAt(problems, `${at}.email_verification`)}
          />
        )}
        <Stack gap={4}>
          <Switch
            label="Junction (many-to-many)"
            description="Links the two tables its required references point at: each can include the other"
            checked={Boolean(table.junction)}
            onChange={(e) => dispatch({ type: 'setTableOptions', tableKey, options: { junction: e.currentTarget.checked || undefined } })}
            aria-invalid={junctionProblem ? true : undefined}
            aria-describedby={junctionProblem ? `${tableKey}-junction-problem` : undefined}
          />
          {junctionProblem && (
            <Text id={`${tableKey}-junction-problem`} size="sm" c="var(--mantine-color-error)">
              {junctionProblem}
            </Text>
          )}
        </Stack>
        <Stack gap={4}>
          <Switch
            label="Realtime"
            description={
              <span id={realtimeAboutId}>
                {table.external
                  ? 'Not available on a table of a fronted database: capture would need triggers there, and Tablesmith does not change a database it fronts'
                  : 'Clients can watch its changes live (GET /v1/<project>/realtime); each write also records the change'}
              </span>
            }
            checked={Boolean(table.realtime)}
            disabled={realtimeLocked}
            onChange={(e) => dispatch({ type: 'setTableOptions', tableKey, options: { realtime: e.currentTarget.checked || undefined } })}
            aria-invalid={realtimeProblem ? true : undefined}
            aria-describedby={realtimeProblem ? `${realtimeAboutId} ${realtimeNoteId}` : realtimeAboutId}
          />
          {realtimeProblem && (
            <Text id={realtimeNoteId} size="sm" c="var(--mantine-color-error)">
              {realtimeProblem}
            </Text>
          )}
        </Stack>
        <NumberInput
          label="Edge cache (seconds)"
          description={
            publicRead
              ? 'Shared caches (an edge Caddy, a CDN) may keep anonymous reads this long; writes through the API purge them sooner. Empty: not cached'
              : 'Needs the public read permission: a shared cache gives its answers to everyone'
          }
          placeholder="not cached"
          min={CACHE_MAX_AGE_MIN}
          max={CACHE_MAX_AGE_MAX}
          allowDecimal={false}
          allowNegative={false}
          disabled={!publicRead && table.cache === undefined}
          value={table.cache?.max_age ?? ''}
          onChange={(v) => {
            const maxAge = typeof v === 'number' ? v : v === '' ? undefined : Number(v);
            dispatch({ type: 'setTableOptions', tableKey, options: { cache: maxAge === undefined ? undefined : { max_age: maxAge } } });
          }}
          error={cacheProblem}
        />
        {table.external ? (
          <Stack gap={2}>
            <Text size="sm" fw={500}>
              Primary key
            </Text>
            <Text size="sm">
              <span className="mono">{table.external.primary_key}</span> ({table.id_type === 'uuid' ? 'UUID' : 'integer'}), kept by the database
            </Text>
          </Stack>
        ) : (
          <NativeSelect
            label="Id type"
            data={[
              { value: 'integer', label: 'Integer (1, 2, 3…)' },
              { value: 'uuid', label: 'UUID' },
            ]}
            value={table.id_type ?? 'integer'}
            onChange={(e) =>
              dispatch({
                type: 'setTableOptions',
                tableKey,
                options: { id_type: e.currentTarget.value === 'uuid' ? 'uuid' : undefined },
              })
            }
            error={problemAt(problems, `${at}.id_type`)}
          />
        )}
      </Stack>
      <TextInput
        label="Description"
        description="Shown in the API docs"
        value={table.description ?? ''}
        onChange={(e) => dispatch({ type: 'setTableOptions', tableKey, options: { description: e.currentTarget.value || undefined } })}
      />

      <section aria-labelledby={`${tableKey}-columns`}>
        <Group justify="space-between" mb="xs">
          <Title order={3} size="h5" id={`${tableKey}-columns`}>
            Columns
          </Title>
          <Button size="xs" variant="light" leftSection={<IconPlus size={14} />} onClick={() => dispatch({ type: 'addColumn', tableKey })}>
            Add column
          </Button>
        </Group>
        <ColumnList table={table} tableIndex={tableIndex} tables={tables} problems={problems} dispatch={dispatch} />
      </section>

      <section aria-labelledby={`${tableKey}-relations`}>
        <Title order={3} size="h5" id={`${tableKey}-relations`} mb="xs">
          Relationships
        </Title>
        <RelationshipAdder table={table} tables={tables} dispatch={dispatch} />
      </section>

      <section aria-labelledby={`${tableKey}-permissions`}>
        <Title order={3} size="h5" id={`${tableKey}-permissions`} mb={4}>
          Permissions
        </Title>
        <Text size="sm" c="dimmed" mb="xs">
          Who may use each operation. API keys reach every row; end users with the owner level reach only their own.
        </Text>
        <PermissionsEditor table={table} tableIndex={tableIndex} tables={tables} problems={problems} dispatch={dispatch} />
      </section>
    </Stack>
  );
}
