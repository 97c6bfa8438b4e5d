import { json } from '@codemirror/lang-json';
import { Alert, Anchor, Button, Code, Collapse, Grid, Group, List, NativeSelect, Paper, SegmentedControl, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { IconSend } from '@tabler/icons-react';
import CodeMirror, { EditorView } from '@uiw/react-codemirror';
import { useEffect, useMemo, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { isApiError } from '../../../api/client';
import { generatedUrl, sendGenerated, type GeneratedResponse } from '../../../api/generated';
import { isStreamOperation, realtimeUrl } from '../../../api/realtime';
import { EmptyState } from '../../../components/EmptyState';
import { CodeSamples } from '../../../components/CodeSamples';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { KeyPicker } from '../../../components/KeyPicker';
import { LoadingState } from '../../../components/LoadingState';
import { MethodBadge } from '../../../components/MethodBadge';
import { PageHeader } from '../../../components/PageHeader';
import { extraQueryParameters, newConsoleRequest, requestPath, requestQuery, type ConsoleRequest } from '../../../console/consoleRequest';
import { snippetCredential } from '../../../console/snippets';
import { exampleBodyWithHints, referencedTables, takesBody } from '../../../console/exampleBody';
import { buildFormData, emptyFormBody, formFields, formParts, formValuesFromJson, takesFormOnly, type FormBody } from '../../../console/formBody';
import { readHistory, withEntry, writeHistory, type HistoryEntry } from '../../../console/history';
import { existingIds } from '../../../console/referenceIds';
import { listOperations, pathParameterNames, tableOfPath, type ConsoleOperation } from '../../../console/openapi';
import { useOpenApiQuery } from '../../../data/openapi/openapi-query';
import { usePublishedSchemaQuery } from '../../../data/schema/schema-versions-query';
import { isSessionCredential, useKeyVault } from '../../../lib/keyVault';
import { relationNamesOf, SYSTEM_COLUMNS } from '../../../schema/document';
import { tones } from '../../../tones';
import { useProjectId } from '../useProjectId';
import { FormBodyEditor } from './FormBodyEditor';
import { HistoryList } from './HistoryList';
import { ListHelpersForm } from './ListHelpersForm';
import { ParameterDescription } from './ParameterDescription';
import { ResponseView } from './ResponseView';
import { StreamConsole } from './StreamConsole';
import classes from './TestPage.module.css';

export function TestPage() {
  const projectId = useProjectId();
  const openapi = useOpenApiQuery(projectId);
  const operations = useMemo(() => (openapi.data ? listOperations(openapi.data) : []), [openapi.data]);

  return (
    <Stack gap="md">
      <PageHeader title="Test" description="Send requests to the generated API and inspect the answers." />
      {openapi.isPending && <LoadingState label="Loading the API description…" />}
      {openapi.error &&
        (isApiError(openapi.error, 'NOT_FOUND') ? (
          <EmptyState title="No API yet" action={<Anchor component={Link} to={`/projects/${projectId}/generate`}>Generate the API</Anchor>}>
            The request console lists the operations of the generated API, so it needs a first generate.
          </EmptyState>
        ) : (
          <ErrorAlert error={openapi.error} title="The API description could not be loaded" />
        ))}
      {openapi.data && isNonEmpty(operations) && <RequestConsole projectId={projectId} operations={operations} />}
    </Stack>
  );
}

/** The console needs at least one operation to show. */
type Operations = [ConsoleOperation, ...ConsoleOperation[]];

function isNonEmpty(operations: ConsoleOperation[]): operations is Operations {
  return operations.length > 0;
}

interface RequestConsoleProps {
  projectId: string;
  operations: Operations;
}

function RequestConsole({ projectId, operations }: RequestConsoleProps) {
  const openapi = useOpenApiQuery(projectId).data!;
  const schema = usePublishedSchemaQuery(projectId).data ?? undefined;
  const { selected: key } = useKeyVault(projectId);
  const [searchParams] = useSearchParams();
  const [tokenOverride, setTokenOverride] = useState('');
  const [history, setHistory] = useState<HistoryEntry[]>(() => readHistory(projectId));
  const [response, setResponse] = useState<GeneratedResponse | null>(null);
  const [sendError, setSendError] = useState<unknown>(null);
  const [sending, setSending] = useState(false);
  const responseRef = useRef<HTMLDivElement>(null);

  const initialId = operations.find((o) => o.id === searchParams.get('op'))?.id ?? operations.find((o) => o.isList)?.id ?? operations[0].id;
  const [request, setRequest] = useState<ConsoleRequest>(() => requestFor(operations, initialId));
  const operation = operations.find((o) => o.id === request.operationId) ?? operations[0];
  const credential = tokenOverride.trim() || key?.secret;

  // Unique columns get values of their own each time an example is made,
  // so sending two examples in a row does not collide.
  const [seed, setSeed] = useState(freshSeed);
  const referenced = useMemo(() => referencedTables(operation, schema), [operation, schema]);
  const referenceIds = useQuery({
    queryKey: ['test-console', projectId, 'reference-ids', referenced, credential ?? ''],
    queryFn: () => existingIds(projectId, referenced, credential),
    enabled: referenced.length > 0,
    staleTime: 10_000,
  });
  const example = useMemo(
    () => exampleBodyWithHints(operation, schema, openapi, { seed, referenceIds: referenceIds.data }),
    [operation, schema, openapi, seed, referenceIds.data],
  );
  // The body follows the example until the user edits it: a new operation,
  // the schema or the referenced ids arriving all renew it.
  const [edited, setEdited] = useState(false);
  useEffect(() => {
    if (!edited) setRequest((r) => (r.body === example.text ? r : { ...r, body: example.text }));
  }, [example.text, edited]);

  const table = schema?.tables.find((t) => t.name === tableOfPath(operation.path));
  const columns = table ? [...SYSTEM_COLUMNS, ...table.columns.filter((c) => c.type !== 'password').map((c) => c.name)] : [...SYSTEM_COLUMNS];
  const relations = table && schema ? relationNamesOf(schema, table.name) : [];
  const url = generatedUrl(projectId, requestPath(operation, request), requestQuery(operation, request));
  const stream = isStreamOperation(operation);

  // A write of a table with file columns may be sent as a form with
  // files (multipart/form-data) instead of JSON; an upload only as one.
  const fields = useMemo(() => formFields(operation, schema, openapi), [operation, schema, openapi]);
  const formOnly = takesFormOnly(operation);
  const [bodyMode, setBodyMode] = useState<BodyMode>('json');
  const [form, setForm] = useState<FormBody>(emptyFormBody);
  const sendsForm = fields !== undefined && (formOnly || bodyMode === 'form');
  const bodyText = takesBody(operation) && !sendsForm ? request.body : '';
  const chooseBodyMode = (mode: BodyMode) => {
    // The form starts from the JSON body's values; its files stay chosen.
    if (mode === 'form' && fields) setForm((f) => ({ ...f, values: formValuesFromJson(fields, request.body) }));
    setBodyMode(mode);
  };
  const resetForm = () => {
    setBodyMode('json');
    setForm(emptyFormBody);
  };

  const chooseOperation = (id: string) => {
    const next = operations.find((o) => o.id === id);
    if (!next) return;
    setRequest(requestFor(operations, id));
    setEdited(false);
    setSeed(freshSeed());
    setResponse(null);
    resetForm();
  };

  const send = async () => {
    setSending(true);
    setSendError(null);
    try {
      const result = await sendGenerated(projectId, {
        method: operation.method,
        path: requestPath(operation, request),
        query: requestQuery(operation, request),
        body: sendsForm && fields ? buildFormData(fields, form) : bodyText,
        credential,
        binary: operation.binaryAnswer,
      });
      setResponse(result);
      const entry: HistoryEntry = {
        at: new Date().toISOString(),
        operationId: operation.id,
        method: operation.method,
        path: operation.path,
        url,
        body: bodyText || undefined,
        status: result.status,
        timeMs: result.timeMs,
        request,
      };
      const next = withEntry(history, entry);
      setHistory(next);
      writeHistory(projectId, next);
      // On narrow screens the answer is below the form: bring it into view.
      requestAnimationFrame(() => responseRef.current?.scrollIntoView({ block: 'nearest' }));
    } catch (error) {
      setSendError(error);
    } finally {
      setSending(false);
    }
  };

  const groups = useMemo(() => {
    const byTag = new Map<string, { value: string; label: string }[]>();
    for (const o of operations) {
      const items = byTag.get(o.tag) ?? [];
      items.push({ value: o.id, label: `${o.method} ${o.path}${o.summary ? ` — ${o.summary}` : ''}` });
      byTag.set(o.tag, items);
    }
    return [...byTag].map(([group, items]) => ({ group: group || 'other', items }));
  }, [operations]);

  const hasParameters = pathParameterNames(operation.path).length > 0 || extraQueryParameters(operation).length > 0 || operation.isList;

  return (
    <Grid gutter="md">
      <Grid.Col span={{ base: 12, lg: 7 }}>
        <Stack gap="md">
          <Paper withBorder p="md">
            <Stack gap="sm">
              <NativeSelect label="Operation" data={groups} value={operation.id} onChange={(e) => chooseOperation(e.currentTarget.value)} />
              <KeyPicker projectId={projectId} label="Send with key" />
              <TextInput
                label="Or a bearer token"
                description="An end-user access token from /auth/login; it replaces the key while filled in"
                value={tokenOverride}
                onChange={(e) => setTokenOverride(e.currentTarget.value)}
                autoComplete="off"
              />
            </Stack>
          </Paper>

          {takesBody(operation) && (
            <Paper withBorder p="md">
              <Group justify="space-between" mb="xs" gap="xs">
                <Title order={2} size="h5" id="body-label">
                  {sendsForm ? 'Form body' : 'JSON body'}
                </Title>
                <Group gap="xs">
                  {fields && !formOnly && (
                    <SegmentedControl
                      size="xs"
                      aria-label="Body"
                      value={bodyMode}
                      onChange={(value) => chooseBodyMode(value === 'form' ? 'form' : 'json')}
                      data={[
                        { value: 'json', label: 'JSON' },
                        { value: 'form', label: 'Form with files' },
                      ]}
                    />
                  )}
                  {!sendsForm && (
                    <Button
                      size="compact-sm"
                      variant="subtle"
                      onClick={() => {
                        setEdited(false);
                        setSeed(freshSeed());
                      }}
                    >
                      Reset to example
                    </Button>
                  )}
                </Group>
              </Group>
              {sendsForm && fields ? (
                <Stack gap="xs">
                  <Text size="sm" c="dimmed">
                    Sent as multipart/form-data: each field as a part of its own, each file as a part named after its column.
                  </Text>
                  <FormBodyEditor fields={fields} value={form} onChange={setForm} />
                </Stack>
              ) : (
                <>
                  <CodeMirror
                    value={request.body}
                    onChange={(body) => {
                      setEdited(true);
                      setRequest((r) => ({ ...r, body }));
                    }}
                    extensions={bodyEditorExtensions}
                    minHeight="120px"
                    maxHeight="360px"
                    aria-labelledby="body-label"
                    data-testid="request-body"
                    style={{ border: '1px solid var(--mantine-color-gray-3)', borderRadius: 8, overflow: 'hidden' }}
                  />
                  {example.hints.length > 0 && !edited && (
                    <Alert color={tones.warning} variant="light" mt="xs" title="Fill in before sending" data-testid="example-hints">
                      <List size="sm">
                        {example.hints.map((h) => (
                          <List.Item key={h.field}>
                            <Code>{h.field}</Code>: {h.hint}
                          </List.Item>
                        ))}
                      </List>
                    </Alert>
                  )}
                </>
              )}
            </Paper>
          )}

          {hasParameters ? (
            <Paper withBorder p="md">
              <Stack gap="sm">
                <Title order={2} size="h5">
                  Parameters
                </Title>
                <PathAndExtraParams key={operation.id} operation={operation} request={request} onChange={setRequest} />
                {operation.isList && (
                  <ListHelpersForm value={request.helpers} onChange={(helpers) => setRequest({ ...request, helpers })} columns={columns} relations={relations} />
                )}
              </Stack>
            </Paper>
          ) : null}
        </Stack>
      </Grid.Col>
      <Grid.Col span={{ base: 12, lg: 5 }}>
        <Stack gap="md" className={classes.side}>
          <Paper withBorder p="md" aria-label="Request">
            <Stack gap="xs">
              <Group gap="xs" wrap="nowrap">
                <MethodBadge method={operation.method} />
                <Text className="mono" size="sm" style={{ wordBreak: 'break-all' }} data-testid="request-url" lineClamp={3}>
                  {url}
                </Text>
              </Group>
              <Group gap="xs">
                {!stream && (
                  <Button leftSection={<IconSend size={16} />} onClick={() => void send()} loading={sending}>
                    Send
                  </Button>
                )}
                {!credential && (
                  <Text size="sm" c="dimmed">
                    Sending without a credential: only public operations answer.
                  </Text>
                )}
              </Group>
            </Stack>
          </Paper>
          <Paper withBorder p="md" component="section" aria-labelledby="code-title">
            <Title order={2} size="h5" id="code-title" mb="xs">
              Code to copy
            </Title>
            <CodeSamples
              request={{
                method: operation.method,
                url: `${window.location.origin}${url}`,
                credential: snippetCredential(key && { secret: key.secret, isSession: isSessionCredential(key) }, tokenOverride),
                body: bodyText,
                form: sendsForm && fields ? formParts(fields, form) : undefined,
                stream,
              }}
            />
          </Paper>
          <div ref={responseRef}>
            {stream ? (
              // The stream never ends, so it is opened (with the credential in
              // the URL, as EventSource needs: a key as ?access_token=, the
              // session as a stream ticket) instead of sent.
              <StreamConsole
                key={`${url} ${credential ?? ''}`}
                projectId={projectId}
                credential={credential}
                urlFor={(streamCredential) => realtimeUrl(projectId, requestQuery(operation, request), streamCredential)}
              />
            ) : null}
            {sendError ? <ErrorAlert error={sendError} title="The request could not be sent" /> : null}
            {stream ? null : response ? (
              <ResponseView response={response} />
            ) : (
              <Text size="sm" c="dimmed" ta="center" py="sm">
                The response appears here.
              </Text>
            )}
          </div>
          <Paper withBorder p="md" component="section" aria-labelledby="history-title">
            <Title order={2} size="h5" id="history-title" mb="xs">
              History
            </Title>
            <HistoryList
              entries={history}
              onPick={(entry) => {
                if (entry.request && operations.some((o) => o.id === entry.request!.operationId)) {
                  setRequest(entry.request);
                  setEdited(true);
                  resetForm();
                } else chooseOperation(entry.operationId);
              }}
              onClear={() => {
                setHistory([]);
                writeHistory(projectId, []);
              }}
            />
          </Paper>
        </Stack>
      </Grid.Col>
    </Grid>
  );
}

type BodyMode = 'json' | 'form';

// The editable element is CodeMirror's content, not its wrapper: it
// carries the name screen readers announce.
const bodyEditorExtensions = [json(), EditorView.contentAttributes.of({ 'aria-labelledby': 'body-label' })];

/** A fresh request for an operation; the stream starts with all its tables named. */
function requestFor(operations: ConsoleOperation[], id: string): ConsoleRequest {
  const request = newConsoleRequest(id);
  const operation = operations.find((o) => o.id === id);
  if (!operation || !isStreamOperation(operation)) return request;
  const tables = operation.parameters.find((p) => p.in === 'query' && p.name === 'tables')?.schema?.items?.enum ?? [];
  return { ...request, extra: { tables: tables.filter((t): t is string => typeof t === 'string').join(',') } };
}

function freshSeed(): number {
  return 1 + Math.floor(Math.random() * 1_000_000);
}

interface PathAndExtraParamsProps {
  operation: ConsoleOperation;
  request: ConsoleRequest;
  onChange: (request: ConsoleRequest) => void;
}

function PathAndExtraParams({ operation, request, onChange }: PathAndExtraParamsProps) {
  const pathNames = pathParameterNames(operation.path);
  // The stream's access_token is the chosen credential, never typed here.
  const all = extraQueryParameters(operation).filter((name) => !(isStreamOperation(operation) && name === 'access_token'));
  // Per-column filters (dozens on a wide table) matter to the by-filter
  // operations only; they stay folded so the form keeps to what is common.
  const filters = all.filter((name) => name.startsWith('filter['));
  const extra = all.filter((name) => !name.startsWith('filter['));
  const [showFilters, setShowFilters] = useState(filters.some((name) => request.extra[name]));
  if (pathNames.length + all.length === 0) return null;
  const input = (name: string) => <QueryParameterInput key={`query-${name}`} name={name} operation={operation} request={request} onChange={onChange} />;
  return (
    <Stack gap="sm">
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
        {pathNames.map((name) => (
          <TextInput
            key={`path-${name}`}
            label={`${name} (path)`}
            required
            value={request.pathValues[name] ?? ''}
            onChange={(e) => onChange({ ...request, pathValues: { ...request.pathValues, [name]: e.currentTarget.value } })}
          />
        ))}
        {extra.map(input)}
      </SimpleGrid>
      {filters.length > 0 && (
        <div>
          <Button variant="subtle" size="compact-sm" onClick={() => setShowFilters((o) => !o)} aria-expanded={showFilters}>
            {showFilters ? 'Hide' : 'Show'} {filters.length} column filter parameters
          </Button>
          <Collapse in={showFilters}>
            <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm" mt="xs">
              {filters.map(input)}
            </SimpleGrid>
          </Collapse>
        </div>
      )}
    </Stack>
  );
}

interface QueryParameterInputProps extends PathAndExtraParamsProps {
  name: string;
}

/** One query parameter: a select when the document lists its values (count), else a text box. */
function QueryParameterInput({ name, operation, request, onChange }: QueryParameterInputProps) {
  const parameter = operation.parameters.find((p) => p.name === name);
  const description = parameter?.description ? <ParameterDescription text={parameter.description} /> : undefined;
  const choices = parameter?.schema?.enum?.filter((v): v is string => typeof v === 'string');
  const change = (value: string) => onChange({ ...request, extra: { ...request.extra, [name]: value } });
  if (choices?.length) {
    const fallback = typeof parameter?.schema?.default === 'string' ? ` (default: ${parameter.schema.default})` : ' (default)';
    return (
      <NativeSelect
        key={`query-${name}`}
        label={`${name} (query)`}
        description={description}
        data={[{ value: '', label: `Not sent${fallback}` }, ...choices.map((c) => ({ value: c, label: c }))]}
        value={request.extra[name] ?? ''}
        onChange={(e) => change(e.currentTarget.value)}
      />
    );
  }
  return (
    <TextInput key={`query-${name}`} label={`${name} (query)`} description={description} value={request.extra[name] ?? ''} onChange={(e) => change(e.currentTarget.value)} />
  );
}
