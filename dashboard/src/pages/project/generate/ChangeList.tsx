import { Badge, Group, List, Stack, Table, Text } from '@mantine/core';
import { IconAlertTriangle, IconCircleCheck, IconClockPause } from '@tabler/icons-react';
import type { PlannedChange } from '../../../api/types';
import { describeViolation, type ChangeFindings } from '../../../evolution/plan';
import { tones } from '../../../tones';

const KIND_COLORS: [RegExp, string][] = [
  [/drop|delete|remove/, tones.danger],
  [/create|add/, tones.success],
  [/rename/, 'indigo.8'],
];

function kindColor(kind: string): string {
  return KIND_COLORS.find(([pattern]) => pattern.test(kind))?.[1] ?? 'gray.8';
}

export function humanizeKind(kind: string): string {
  const words = kind.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

interface ChangeListProps {
  changes: PlannedChange[];
  /** Per change (same order): rows that would block it and the server's refusal of it. */
  findings?: ChangeFindings[];
  /** True when the prechecks ran (?check=true), so "no violations" means the rows fit. */
  checked?: boolean;
}

/** The pending changes of a plan: what each does, which lose data, which wait on the table, and what existing rows block. */
export function ChangeList({ changes, findings, checked = false }: ChangeListProps) {
  return (
    <Table.ScrollContainer minWidth={620}>
      <Table striped verticalSpacing="xs" aria-label="Pending changes">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Change</Table.Th>
            <Table.Th>Where</Table.Th>
            <Table.Th>What it does</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {changes.map((change, i) => {
            const found = findings?.[i] ?? { violations: [], refusals: [] };
            const blocked = found.violations.length > 0 || found.refusals.length > 0 || Boolean(change.unsupported);
            return (
              <Table.Tr key={`${change.kind}-${change.table}-${change.column ?? ''}-${i}`} data-testid={`change-${change.table}${change.column ? `.${change.column}` : ''}`}>
                <Table.Td style={{ minWidth: 140 }}>
                  <Stack gap={4} align="flex-start">
                    <Badge color={kindColor(change.kind)} variant="outline" tt="none">
                      {humanizeKind(change.kind)}
                    </Badge>
                    {change.destructive && (
                      <Badge color={tones.danger} variant="filled" tt="none">
                        loses data
                      </Badge>
                    )}
                    {change.rewrites_table && (
                      <Badge color={tones.warning} variant="filled" tt="none">
                        rewrites table
                      </Badge>
                    )}
                    {blocked && (
                      <Badge color={tones.danger} variant="outline" tt="none">
                        {change.unsupported ? 'cannot be applied' : 'blocked'}
                      </Badge>
                    )}
                  </Stack>
                </Table.Td>
                <Table.Td>
                  <Group gap={2} className="mono">
                    <Text span size="sm">
                      {change.table}
                      {change.column ? `.${change.column}` : ''}
                    </Text>
                  </Group>
                </Table.Td>
                <Table.Td>
                  <Stack gap={6}>
                    <Text size="sm">{change.description}</Text>
                    {change.unsupported && (
                      <Text size="sm" c={tones.danger}>
                        Cannot be applied: {change.unsupported}. Generate refuses the whole plan while this change is in the draft.
                      </Text>
                    )}
                    {change.rewrites_table && (
                      <Group gap={6} wrap="nowrap" align="flex-start">
                        <IconClockPause size={16} color={tones.warning} aria-hidden style={{ flex: 'none', marginTop: 2 }} />
                        <Text size="sm" c={tones.warning}>
                          PostgreSQL rewrites <span className="mono">{change.table}</span>: the table is unavailable while it is rewritten (its reads and
                          writes wait until the generate commits). Other tables keep serving.
                        </Text>
                      </Group>
                    )}
                    {found.violations.length > 0 && (
                      <div role="group" aria-label={`Rows that block ${change.table}${change.column ? `.${change.column}` : ''}`}>
                        <Group gap={6} wrap="nowrap" align="flex-start">
                          <IconAlertTriangle size={16} color={tones.danger} aria-hidden style={{ flex: 'none', marginTop: 2 }} />
                          <Text size="sm" c={tones.danger} fw={600}>
                            Existing rows do not fit this change, so generate refuses it and changes nothing. Fix these rows or change the draft:
                          </Text>
                        </Group>
                        <List size="sm" ml={22} spacing={2}>
                          {found.violations.map((v) => (
                            <List.Item key={`${v.column ?? ''}-${v.rule}`} c={tones.danger}>
                              {describeViolation(v)}
                            </List.Item>
                          ))}
                        </List>
                      </div>
                    )}
                    {found.refusals.map((message) => (
                      <Text key={message} size="sm" c={tones.danger}>
                        Refused: {message}
                      </Text>
                    ))}
                    {(change.checks?.length ?? 0) > 0 && found.violations.length === 0 && (
                      <Group gap={6} wrap="nowrap" align="flex-start">
                        {checked && <IconCircleCheck size={16} color={tones.success} aria-hidden style={{ flex: 'none', marginTop: 2 }} />}
                        <Text size="sm" c={checked ? tones.success : 'dimmed'}>
                          {checked ? 'Existing rows fit: ' : 'Existing rows are checked first: '}
                          {change.checks!.join('; ')}
                        </Text>
                      </Group>
                    )}
                    <ChangeSql change={change} />
                  </Stack>
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function ChangeSql({ change }: { change: PlannedChange }) {
  const inTx = change.statements ?? [];
  const after = change.after_commit ?? [];
  if (inTx.length === 0 && after.length === 0) return null;
  return (
    <details>
      <summary>
        <Text span size="xs">
          SQL: {inTx.length} in the transaction{after.length ? `, ${after.length} after the commit` : ''}
        </Text>
      </summary>
      <pre className="pre-block">
        {[...inTx.map(terminated), ...after.map((s) => `-- after the commit, without blocking the API\n${terminated(s)}`)].join('\n\n')}
      </pre>
    </details>
  );
}

export function terminated(statement: string): string {
  return statement.trim().endsWith(';') ? statement : `${statement};`;
}
