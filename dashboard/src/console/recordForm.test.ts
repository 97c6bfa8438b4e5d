import { describe, expect, it } from 'vitest';
import type { SchemaTable } from '../schema/document';
import { formToBody, initialFormValues } from './recordForm';

const users: SchemaTable = {
  name: 'users',
  columns: [
    { name: 'email', type: 'email', required: true },
    { name: 'password_hash', type: 'password', required: true },
    { name: 'age', type: 'integer' },
    { name: 'is_active', type: 'boolean', default: true },
    { name: 'prefs', type: 'json' },
  ],
};

describe('record form', () => {
  it('starts a create with defaults and blanks', () => {
    expect(initialFormValues(users)).toEqual({ email: '', password: '', age: '', is_active: 'true', prefs: '' });
  });

  it('converts a create, leaving optional blanks out', () => {
    const { body, errors } = formToBody(users, { email: 'a@b.co', password: 'pw', age: '', is_active: 'false', prefs: '{"a":1}' });
    expect(errors).toEqual({});
    expect(body).toEqual({ email: 'a@b.co', password: 'pw', is_active: false, prefs: { a: 1 } });
  });

  it('reports values that cannot be converted', () => {
    expect(formToBody(users, { email: 'x', password: 'p', age: '1.5', is_active: 'true', prefs: '{' }).errors).toEqual({
      age: 'must be a whole number',
      prefs: 'must be valid JSON',
    });
  });

  it('an edit sends only changed fields, keeps a blank password and clears an emptied field', () => {
    const record = { id: 1, email: 'a@b.co', age: 30, is_active: true, prefs: null };
    const original = initialFormValues(users, record);
    expect(original.password).toBe('');
    const { body } = formToBody(users, { ...original, age: '', is_active: 'false' }, original);
    expect(body).toEqual({ age: null, is_active: false });
  });
});
