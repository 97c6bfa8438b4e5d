import { json } from '@codemirror/lang-json';
import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import CodeMirror from '@uiw/react-codemirror';
import { useState } from 'react';
import type { SchemaDocument } from '../../../schema/document';

interface JsonSchemaEditorProps {
  document: SchemaDocument;
  onApply: (document: SchemaDocument) => void;
}

/** The schema as its JSON document (CONTRACT 4.1), editable as text. */
export function JsonSchemaEditor({ document, onApply }: JsonSchemaEditorProps) {
  const [text, setText] = useState(() => JSON.stringify(document, null, 2));
  const [error, setError] = useState<string>();

  const apply = () => {
    try {
      const parsed = JSON.parse(text) as SchemaDocument;
      if (!parsed || !Array.isArray(parsed.tables)) throw new Error('The document needs a "tables" array.');
      if (parsed.tables.some((t) => !t || typeof t !== 'object' || !Array.isArray(t.columns))) {
        throw new Error('Every table needs a "columns" array.');
      }
      setError(undefined);
      onApply(parsed);
    } catch (e) {
      setError((e as Error).message);
    }
  };

  return (
    <Stack gap="xs" h="100%">
      <Group justify="space-between">
        <Text size="sm" c="dimmed">
          Edit the schema document directly, then apply it to the builder.
        </Text>
        <Group gap="xs">
          <Button size="xs" variant="default" onClick={() => setText(JSON.stringify(document, null, 2))}>
            Reset to builder
          </Button>
          <Button size="xs" onClick={apply}>
            Apply JSON
          </Button>
        </Group>
      </Group>
      {error && (
        <Alert color="red" variant="light" title="The JSON cannot be applied">
          {error}
        </Alert>
      )}
      <CodeMirror
        value={text}
        onChange={setText}
        extensions={[json()]}
        height="100%"
        style={{ flex: 1, minHeight: 320, overflow: 'auto', border: '1px solid var(--mantine-color-gray-3)', borderRadius: 8 }}
        aria-label="Schema document as JSON"
        basicSetup={{ foldGutter: true, highlightActiveLine: true }}
      />
    </Stack>
  );
}
