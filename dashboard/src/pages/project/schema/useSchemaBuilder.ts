import { useEffect, useMemo, useReducer, useRef } from 'react';
import { builderReducer, emptyBuilderState, isDirty, savedDocument, toDocument } from '../../../builder/state';
import { validateDocument } from '../../../builder/validation';
import { usePublishedSchemaQuery } from '../../../data/schema/schema-versions-query';
import { useDraftSchemaQuery } from '../../../data/schema/schema-query';
import { stableJson } from '../../../lib/stableJson';
import type { SchemaDocument } from '../../../schema/document';

/** The builder's reducer, loaded once from the saved draft and the published schema. */
export function useSchemaBuilder(projectId: string) {
  const draft = useDraftSchemaQuery(projectId);
  const published = usePublishedSchemaQuery(projectId);
  const [state, dispatch] = useReducer(builderReducer, emptyBuilderState);
  const loadedFor = useRef<string | null>(null);

  const publishedSettled = published.isSuccess || published.isError;
  useEffect(() => {
    if (!draft.data || !publishedSettled || loadedFor.current === projectId) return;
    loadedFor.current = projectId;
    dispatch({ type: 'load', draft: draft.data, published: published.data ?? null });
  }, [draft.data, publishedSettled, published.data, projectId]);

  // A generate elsewhere publishes a new version: renames are measured against it.
  useEffect(() => {
    if (loadedFor.current === projectId && published.data !== undefined) {
      dispatch({ type: 'setPublished', published: published.data });
    }
  }, [published.data, projectId]);

  const document = useMemo(() => toDocument(state), [state]);
  const documentJson = useMemo(() => stableJson(document), [document]);
  const clientProblems = useMemo(() => validateDocument(document), [document]);

  return {
    state,
    dispatch,
    /** Shows a draft the server just saved in place of the builder's (after an upload or a reset). */
    replaceDraft: (saved: SchemaDocument) => dispatch({ type: 'load', draft: saved, published: state.published }),
    document,
    documentJson,
    clientProblems,
    dirty: isDirty(state),
    saved: useMemo(() => savedDocument(state), [state]),
    loading: loadedFor.current !== projectId && !draft.error,
    loadError: draft.error,
    publishedError: published.error,
  };
}
