// The API's e-mail rule (schema.EmailPattern and EmailMaxLength), taken
// from the file generated from the Go registry: the pattern and bound the
// OpenAPI document publishes, so the dashboard refuses exactly what the
// server refuses (schema/testdata/formats.json holds the shared cases).
import { emailRule } from '../schema/columnTypes.gen';

const EMAIL = new RegExp(emailRule.pattern, 'u');
const BLANKS = /^[\t\n\v\f\r ]+|[\t\n\v\f\r ]+$/g;

/** Whether the server takes the value, as sent, as an e-mail address (ASCII blanks around it are allowed). */
export function isEmail(value: string): boolean {
  return [...value].length <= emailRule.maxLength && EMAIL.test(value);
}

/** The address as the server stores it: ASCII blanks trimmed, in lower case. */
export function normalizeEmail(value: string): string {
  return value.replace(BLANKS, '').toLowerCase();
}
