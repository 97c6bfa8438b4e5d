// Takes the user from a problem in a list to the field it is about: the
// table is selected by the caller; this scrolls the field into view and
// focuses it, unfolding a column's constraints when the field is there.

const TRIES = 20;

/** The column (or table) part of a problem path, and the field after it. */
export function splitProblemPath(path: string): { owner: string; field?: string } | undefined {
  const match = /^(tables\[\d+\](?:\.columns\[\d+\])?)(?:\.([a-z_]+))?/.exec(path);
  return match ? { owner: match[1]!, field: match[2] } : undefined;
}

/**
 * Focuses the field of path once it is on the page (the table editor
 * renders after the selection); gives up quietly after about a second.
 */
export function focusProblemField(path: string, attempt = 0): void {
  const parts = splitProblemPath(path);
  if (!parts) return;
  const owner = document.querySelector<HTMLElement>(`[data-path="${parts.owner}"]`);
  if (!owner) {
    if (attempt < TRIES) window.setTimeout(() => focusProblemField(path, attempt + 1), 50);
    return;
  }
  const inRow = parts.owner.includes('.columns[');
  const folded = owner.querySelector<HTMLButtonElement>('button[aria-expanded="false"][aria-label^="Show constraints"]');
  if (inRow && parts.field && !['name', 'type'].includes(parts.field) && folded) {
    folded.click();
    window.setTimeout(() => focusIn(owner, parts.field), 250); // after the unfold
    return;
  }
  focusIn(owner, parts.field);
}

function focusIn(owner: HTMLElement, field: string | undefined): void {
  const tableName = field === 'name' && !owner.dataset.path?.includes('.columns[') ? owner.querySelector<HTMLElement>('input') : null;
  const target =
    tableName ??
    owner.querySelector<HTMLElement>('[aria-invalid="true"]') ??
    (field === 'type' ? owner.querySelector<HTMLElement>('select') : null) ??
    owner.querySelector<HTMLElement>('input, select, textarea');
  owner.scrollIntoView({ block: 'center' });
  (target ?? owner).focus({ preventScroll: true });
}
