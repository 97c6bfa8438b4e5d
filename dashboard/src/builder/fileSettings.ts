// The settings of file and files columns (docs/files.md) as the builder
// edits them: max_size in bytes shown with a unit, mime_types as media
// types or ranges, max_files for lists. The rules are the server's
// (schema.checkFileSettings); validation.ts reports them by path.

/** The most files one files column may hold (schema.MaxMaxFiles), and what it holds when max_files is unset. */
export const MAX_MAX_FILES = 100;
export const DEFAULT_MAX_FILES = 10;

/** The units a max size is typed in; KB and MB are binary (1 KB = 1,024 bytes), as the server's sizes are. */
export const SIZE_UNITS = ['bytes', 'KB', 'MB'] as const;
export type SizeUnit = (typeof SIZE_UNITS)[number];

const UNIT_BYTES: Record<SizeUnit, number> = { bytes: 1, KB: 1024, MB: 1024 * 1024 };

/** How many bytes one of the unit is. */
export function unitBytes(unit: SizeUnit): number {
  return UNIT_BYTES[unit];
}

/**
 * A size in bytes as an amount of the largest unit it is a whole number
 * of: 5,242,880 bytes is 5 MB, 3,072 is 3 KB, and 1,536 (1.5 KB) stays
 * 1,536 bytes, so a stored size is shown exactly.
 */
export function sizeParts(bytes: number): { amount: number; unit: SizeUnit } {
  for (const unit of ['MB', 'KB'] as const) {
    const size = UNIT_BYTES[unit];
    if (bytes >= size && bytes % size === 0) return { amount: bytes / size, unit };
  }
  return { amount: bytes, unit: 'bytes' };
}

/** An amount of a unit in whole bytes (1.5 MB is 1,572,864 bytes). */
export function toBytes(amount: number, unit: SizeUnit): number {
  return Math.round(amount * UNIT_BYTES[unit]);
}

/** A size for people: `512 bytes`, `1.5 KB`, `12.3 MB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  const unit = bytes < 1024 * 1024 ? 'KB' : 'MB';
  const amount = bytes / UNIT_BYTES[unit];
  return `${Number(amount.toFixed(amount < 10 ? 1 : 0))} ${unit}`;
}

/**
 * A media type without parameters, or a type with any subtype (image/*),
 * in lower case as the server's sniffing names them (schema.mediaRangeRe).
 */
export const MEDIA_RANGE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,62}\/(\*|[a-z0-9][a-z0-9!#$&^_.+-]{0,126})$/;

/** The media type ranges the "Images only" choice sets. */
export const IMAGES_ONLY = ['image/*'];

/** The server's words for the first value of mime_types that is no media type, if any. */
export function mediaTypesProblem(types: readonly string[]): string | undefined {
  const bad = types.find((t) => !MEDIA_RANGE.test(t));
  return bad === undefined ? undefined : `${JSON.stringify(bad)} is not a media type such as image/png or image/*`;
}

/** Media types typed as text: split at commas and spaces, trimmed, in lower case, each once. */
export function parseMediaTypes(text: string): string[] {
  const out: string[] = [];
  for (const part of text.split(/[\s,]+/)) {
    const type = part.trim().toLowerCase();
    if (type !== '' && !out.includes(type)) out.push(type);
  }
  return out;
}

/** Whether a media type is one a column's mime_types take ("image/png" exactly, "image/*" any image); every type when none are set. */
export function mediaTypeAllowed(allowed: readonly string[] | undefined, mediaType: string): boolean {
  if (!allowed || allowed.length === 0) return true;
  return allowed.some((a) => (a.endsWith('/*') ? mediaType.startsWith(a.slice(0, -1)) : a === mediaType));
}
