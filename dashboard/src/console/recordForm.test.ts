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

  it('reports values that cannot be converted, as the cell editor does', () => {
    expect(formToBody(users, { email: 'x', password: 'p', age: '1.5', is_active: 'true', prefs: '{' }).errors).toEqual({
      email: 'invalid e-mail format',
      age: 'must be a whole number',
      prefs: 'must be valid JSON',
    });
  });

  it('refuses a number out of bounds with the cell editor\'s words instead of clamping it', () => {
    const rated: SchemaTable = { name: 'reviews', columns: [{ name: 'stars', type: 'integer', min: 1, max: 5 }] };
    expect(formToBody(rated, { stars: '9' }).errors).toEqual({ stars: 'must be at most 5' });
    expect(formToBody(rated, { stars: '0' }).errors).toEqual({ stars: 'must be at least 1' });
    expect(formToBody(rated, { stars: '5' })).toEqual({ body: { stars: 5 }, errors: {} });
  });

  it('an edit sends only changed fields, keeps a blank password and clears an emptied field', () => {
    const record = { id: 1, email: 'a@b.co', age: 30, is_active: true, prefs: null };
    const original = initialFormValues(users, record);
    expect(original.password).toBe('');
    const { body } = formToBody(users, { ...original, age: '', is_active: 'false' }, original);
    expect(body).toEqual({ age: null, is_active: false });
  });
});

describe('decimal columns', () => {
  const products: SchemaTable = {
    name: 'products',
    columns: [
      { name: 'title', type: 'text' },
      { name: 'price', type: 'decimal', required: true },
      { name: 'weight', type: 'number' },
    ],
  };
  const big = '12345678901234567890.123456789';

  it('sends a decimal as the string typed, every digit kept', () => {
    const { body, errors } = formToBody(products, { title: 'x', price: ` ${big} `, weight: '1.5' });
    expect(errors).toEqual({});
    expect(body).toEqual({ title: 'x', price: big, weight: 1.5 });
    expect(JSON.stringify(body)).toContain(`"price":"${big}"`);
  });

  it('shows a decimal read from the API exactly and sends it back unchanged', async () => {
    const { parseExactJson } = await import('../lib/exactJson');
    const record = parseExactJson(`{"id":7,"title":"x","price":${big},"weight":2.5}`) as Record<string, unknown>;
    const values = initialFormValues(products, record);
    expect(values.price).toBe(big);
    const edited = formToBody(products, { ...values, price: '1.10' }, values);
    expect(edited.body).toEqual({ price: '1.10' });
    expect(formToBody(products, values, values).body).toEqual({});
  });

  it('refuses text that is not a decimal number', () => {
    for (const bad of ['12.3.4', '0x10', 'NaN', 'Infinity', '1_000']) {
      expect(formToBody(products, { title: '', price: bad, weight: '' }).errors, bad).toEqual({ price: 'must be a decimal number' });
    }
  });
});

describe('record form with file columns', () => {
  const albums: SchemaTable = {
    name: 'albums',
    columns: [
      { name: 'title', type: 'text', required: true },
      { name: 'cover', type: 'file', required: true },
      { name: 'photos', type: 'files' },
    ],
  };
  const record = {
    id: 1,
    title: 'Blue',
    cover: { name: 'c.png', size: 3, type: 'image/png', url: '/v1/p/albums/1/files/cover/c.png' },
    photos: null,
  };

  it('never types a file: its field starts blank and stays out of the JSON body', () => {
    expect(initialFormValues(albums, record)).toEqual({ title: 'Blue', cover: '', photos: '' });
    expect(formToBody(albums, { title: 'Red', cover: '', photos: '' })).toEqual({ body: { title: 'Red' }, errors: {} });
    const original = initialFormValues(albums, record);
    expect(formToBody(albums, { ...original, title: 'Red' }, original)).toEqual({ body: { title: 'Red' }, errors: {} });
  });
});
