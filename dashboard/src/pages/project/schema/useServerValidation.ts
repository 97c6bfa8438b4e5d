import { useCallback, useEffect, useRef, useState } from 'react';
import type { SchemaProblems } from '../../../builder/validation';
import { validateSchemaOnServer } from '../../../data/schema/schema-validate-mutation';
import type { SchemaDocument } from '../../../schema/document';

export interface ServerVerdict {
  json: string;
  problems: SchemaProblems;
}

const DEBOUNCE_MS = 800;

/**
 * Asks the server's validate endpoint about the document, after the user
 * pauses typing (only once the client finds nothing, since the server would
 * find the same) or when asked. A verdict counts only for the exact
 * document it was given.
 */
export function useServerValidation(projectId: string, document: SchemaDocument, json: string, clientClean: boolean, enabled: boolean) {
  const [verdict, setVerdict] = useState<ServerVerdict | null>(null);
  const [checking, setChecking] = useState(false);
  // Only a check the user asked for shows as the Validate button's spinner:
  // the automatic ones must not blank it while the user types.
  const [checkingByHand, setCheckingByHand] = useState(false);
  const [unavailable, setUnavailable] = useState<unknown>(null);
  const latest = useRef(json);
  latest.current = json;

  const check = useCallback(
    async (doc: SchemaDocument, docJson: string) => {
      setChecking(true);
      try {
        const problems = await validateSchemaOnServer({ projectId, document: doc });
        setUnavailable(null);
        if (latest.current === docJson) setVerdict({ json: docJson, problems });
      } catch (error) {
        setUnavailable(error);
      } finally {
        setChecking(false);
        setCheckingByHand(false);
      }
    },
    [projectId],
  );

  useEffect(() => {
    if (!enabled || !clientClean || verdict?.json === json) return;
    const timer = window.setTimeout(() => void check(document, json), DEBOUNCE_MS);
    return () => window.clearTimeout(timer);
  }, [enabled, clientClean, json, document, check, verdict?.json]);

  const current = verdict?.json === json ? verdict : null;
  return {
    verdict: current,
    checking,
    checkingByHand,
    unavailable,
    checkNow: () => {
      setCheckingByHand(true);
      void check(document, json);
    },
    /** Records problems the server returned from a save of this document. */
    adopt: (problems: SchemaProblems, forJson: string) => setVerdict({ json: forJson, problems }),
  };
}
