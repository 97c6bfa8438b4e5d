import { describe, expect, it } from 'vitest';
import type { SchemaColumn, SchemaDocument, SchemaTable } from '../schema/document';
import { describePath, problemAt, unclaimedProblems, validateDocument } from './validation';

function doc(...tables: SchemaTable[]): SchemaDocument {
  return { tables };
}

function table(name: string, ...columns: SchemaColumn[]): SchemaTable {
  return { name, columns };
}

const users = table(
  'users',
  { name: 'email', type: 'email', required: true, unique: true },
  { name: 'password_hash', type: 'password', required: true },
);

describe('validateDocument', () => {
  it('accepts the contract example', () => {
    const example = doc(
      {
        name: 'users',
        auth: true,
        columns: [
          { name: 'email', type: 'email', required: true, unique: true },
          { name: 'name', type: 'text', max_length: 100 },
          { name: 'password_hash', type: 'password', required: true },
          { name: 'age', type: 'integer', min: 0 },
          { name: 'is_active', type: 'boolean', default: true },
        ],
      },
      table(
        'posts',
        { name: 'title', type: 'text', required: true, searchable: true },
        { name: 'author_id', type: 'integer', references: { table: 'users', on_delete: 'cascade' } },
      ),
    );
    expect(validateDocument(example)).toEqual({});
  });

  it.each([
    ['', 'Table name is required'],
    ['Users', 'Table name must start with a lower-case letter'],
    ['1users', 'Table name must start with a lower-case letter'],
    ['_private', 'Table name must not start with an underscore'],
    ['user-list', 'Table name may hold only lower-case letters, digits and underscores'],
    ['a'.repeat(64), 'Table name must be at most 63 characters'],
    ['auth', '"auth" is reserved'],
    ['docs', '"docs" is reserved'],
    ['openapi', '"openapi" is reserved'],
  ])('rejects the table name %j', (name, message) => {
    expect(validateDocument(doc(table(name)))).toEqual({ 'tables[0].name': message });
  });

  it('accepts a 63-character name', () => {
    expect(validateDocument(doc(table('a'.repeat(63))))).toEqual({});
  });

  it('flags the second of two tables with one name', () => {
    expect(validateDocument(doc(table('posts'), table('posts')))).toEqual({
      'tables[1].name': 'another table is already named "posts"',
    });
  });

  it.each(['id', 'created_at', 'updated_at'])('reserves the system column name %s', (name) => {
    expect(validateDocument(doc(table('posts', { name, type: 'text' })))).toEqual({
      'tables[0].columns[0].name': `"${name}" is a system column every table already has`,
    });
  });

  it('flags duplicate column names and bad column names', () => {
    const problems = validateDocument(
      doc(table('posts', { name: 'title', type: 'text' }, { name: 'title', type: 'text' }, { name: 'Body', type: 'text' })),
    );
    expect(problems).toEqual({
      'tables[0].columns[1].name': 'another column of "posts" is already named "title"',
      'tables[0].columns[2].name': 'Column name must start with a lower-case letter',
    });
  });

  it('flags an unknown type', () => {
    expect(validateDocument(doc(table('posts', { name: 'x', type: 'varchar' })))).toEqual({
      'tables[0].columns[0].type': 'unknown type "varchar"',
    });
  });

  it('an enum needs distinct, non-empty values', () => {
    const check = (values?: string[]) =>
      validateDocument(doc(table('posts', { name: 'status', type: 'enum', values })))['tables[0].columns[0].values'];
    expect(check(undefined)).toBe('an enum needs at least one value');
    expect(check([])).toBe('an enum needs at least one value');
    expect(check(['a', ''])).toBe('values must not be empty');
    expect(check(['a', 'a'])).toBe('values must be distinct');
    expect(check(['a', 'b'])).toBeUndefined();
  });

  it('a reference needs an existing table and a key of its id type', () => {
    const problems = validateDocument(
      doc(
        { ...table('users'), id_type: 'uuid' },
        table(
          'posts',
          { name: 'author_id', type: 'integer', references: { table: 'users' } },
          { name: 'topic_id', type: 'integer', references: { table: 'topics' } },
        ),
        table('notes', { name: 'editor_id', type: 'uuid', required: true, references: { table: 'users', on_delete: 'set_null' } }),
      ),
    );
    expect(problems).toEqual({
      'tables[1].columns[0].type': 'must be uuid to reference users.id',
      'tables[1].columns[1].references.table': 'there is no table "topics"',
      'tables[2].columns[0].references.on_delete': 'a required column cannot be set to null on delete',
    });
  });

  it('checks ranges, lengths, patterns and defaults', () => {
    const problems = validateDocument(
      doc(
        table(
          'items',
          { name: 'qty', type: 'integer', min: 5, max: 1, default: 2.5 },
          { name: 'code', type: 'text', min_length: 4, max_length: 2, pattern: '([a-z' },
          { name: 'flag', type: 'boolean', default: 'yes' },
          { name: 'kind', type: 'enum', values: ['a'], default: 'b' },
          { name: 'secret', type: 'password', default: 'x' },
          { name: 'price', type: 'decimal', min: 0, default: -1 },
        ),
      ),
    );
    expect(problems).toEqual({
      'tables[0].columns[0].min': 'must not be greater than max',
      'tables[0].columns[0].default': 'must be a whole number',
      'tables[0].columns[1].min_length': 'must not be greater than max_length',
      'tables[0].columns[1].pattern': 'is not a valid regular expression',
      'tables[0].columns[2].default': 'must be true or false',
      'tables[0].columns[3].default': 'must be one of the values',
      // As the server: a password column's default is a problem of its type.
      'tables[0].columns[4].type': 'a password column cannot be unique, indexed or have a default',
      'tables[0].columns[5].default': 'must be at least 0',
    });
  });

  it('an auth table needs an email and a password column, and there is only one', () => {
    expect(validateDocument(doc({ ...table('members', { name: 'name', type: 'text' }), auth: true }))).toEqual({
      'tables[0].auth': 'an auth table needs a column named email of type email',
    });
    expect(validateDocument(doc({ ...table('members', { name: 'email', type: 'email' }), auth: true }))).toEqual({
      'tables[0].auth': 'an auth table needs a column of type password',
    });
    expect(validateDocument(doc({ ...users, auth: true }, { ...users, name: 'admins', auth: true }))).toEqual({
      'tables[1].auth': 'only one table can be the auth table ("users" is)',
    });
  });

  it('the owner level needs an owner column that references the auth table', () => {
    const posts: SchemaTable = {
      ...table('posts', { name: 'title', type: 'text' }, { name: 'author_id', type: 'integer', references: { table: 'users' } }),
      permissions: { read: 'public', update: 'owner' },
    };
    expect(validateDocument(doc({ ...users, auth: true }, posts))).toEqual({
      // As the server: reported at the permission that needs the owner column.
      'tables[1].permissions.update': 'the owner level needs an owner column',
    });
    expect(validateDocument(doc({ ...users, auth: true }, { ...posts, owner_column: 'title' }))).toEqual({
      'tables[1].owner_column': 'must reference the auth table "users"',
    });
    expect(validateDocument(doc({ ...users, auth: true }, { ...posts, owner_column: 'author_id' }))).toEqual({});
    expect(validateDocument(doc(users, { ...posts, owner_column: 'author_id' }))).toEqual({
      'tables[1].owner_column': 'needs an auth table for end users to own rows',
    });
  });

  it('a relation name may not be a column or system column of its table', () => {
    const problems = validateDocument(
      doc(
        { ...users, columns: [...users.columns, { name: 'posts', type: 'text' }] },
        table('posts', { name: 'author_id', type: 'integer', references: { table: 'users' }, relation: 'created_at' }),
      ),
    );
    expect(problems).toEqual({
      'tables[1].columns[0].relation': 'the relation name "created_at" on "posts" is a system column; set a different name',
      'tables[1].columns[0].reverse_relation': 'the relation name "posts" on "users" is also a column; set a different name',
    });
  });

  it('a key column without _id is named after the table it references', () => {
    const problems = validateDocument(
      doc(users, table('posts', { name: 'writer', type: 'integer', references: { table: 'users' } }, { name: 'users', type: 'text' })),
    );
    expect(problems).toEqual({
      'tables[1].columns[0].relation': 'the relation name "users" on "posts" is also a column; set a different name',
    });
  });

  it('two relations with one name on a table clash', () => {
    const problems = validateDocument(
      doc(
        users,
        table(
          'posts',
          { name: 'author_id', type: 'integer', references: { table: 'users' } },
          { name: 'writer_id', type: 'integer', references: { table: 'users' }, relation: 'author' },
        ),
      ),
    );
    expect(problems).toEqual({
      'tables[1].columns[1].relation': 'the relation name "author" is already used on "posts"',
      'tables[1].columns[1].reverse_relation': 'the relation name "posts" is already used on "users"',
    });
  });
});

describe('showing problems at fields', () => {
  const problems = {
    'tables[0].columns[1].references.table': 'no such table',
    'tables[0].columns[1].name': 'bad name',
    'tables[0].columns[1].weird': 'odd',
    'tables[0].columns[10].name': 'other column',
    'tables[0]': 'table-wide',
  };

  it('problemAt includes sub-fields but not sibling indexes', () => {
    expect(problemAt(problems, 'tables[0].columns[1].references')).toBe('no such table');
    expect(problemAt(problems, 'tables[0].columns[1].name')).toBe('bad name');
  });

  it('unclaimedProblems lists what no field shows', () => {
    expect(unclaimedProblems(problems, 'tables[0].columns[1]', ['name', 'references'])).toEqual(['weird: odd']);
    expect(unclaimedProblems(problems, 'tables[0]', ['name', 'columns'])).toEqual(['table-wide']);
  });

  it('describePath names tables and columns', () => {
    const d = doc(users);
    expect(describePath(d, 'tables[0].columns[1].type')).toBe('table users › column password_hash › type');
    expect(describePath(d, 'tables[3].name')).toBe('table #4 › name');
    expect(describePath(d, 'something')).toBe('something');
  });
});

describe('cache', () => {
  const articles = (extra: Partial<SchemaTable>): SchemaTable => ({ ...table('articles', { name: 'title', type: 'text' }), ...extra });

  it('accepts a lifetime on a publicly readable table', () => {
    expect(validateDocument(doc(articles({ permissions: { read: 'public' }, cache: { max_age: 30 } })))).toEqual({});
  });

  it('says why a table that needs a credential to read cannot be cached', () => {
    const problems = validateDocument(doc(articles({ cache: { max_age: 30 } })));
    expect(problems['tables[0].cache']).toMatch(/public read permission/);
  });

  it('refuses a lifetime that is not whole seconds from 1 to a day', () => {
    for (const maxAge of [0, 1.5, 86401, -1]) {
      const problems = validateDocument(doc(articles({ permissions: { read: 'public' }, cache: { max_age: maxAge } })));
      expect(problems['tables[0].cache.max_age'], String(maxAge)).toBe('must be a whole number of seconds from 1 to 86400');
    }
  });
});

describe('file column settings, in the server words', () => {
  const at = 'tables[0].columns[0]';
  const problemsOf = (column: SchemaColumn) => validateDocument(doc(table('things', column)));

  it('accepts file and files columns with their settings', () => {
    expect(problemsOf({ name: 'cover', type: 'file', required: true, max_size: 5_242_880, mime_types: ['image/*', 'application/pdf'] })).toEqual({});
    expect(problemsOf({ name: 'photos', type: 'files', max_size: 1, mime_types: ['image/png'], max_files: 100 })).toEqual({});
    expect(problemsOf({ name: 'photos', type: 'files', max_files: 1 })).toEqual({});
  });

  it('keeps max_size, mime_types and thumbnails to file columns, reported at max_size', () => {
    const message = 'max_size, mime_types and thumbnails apply to file, files columns only';
    expect(problemsOf({ name: 'title', type: 'text', max_size: 10 })).toEqual({ [`${at}.max_size`]: message });
    expect(problemsOf({ name: 'n', type: 'integer', mime_types: ['image/png'] })).toEqual({ [`${at}.max_size`]: message });
    expect(problemsOf({ name: 'b', type: 'boolean', thumbnails: true })).toEqual({ [`${at}.max_size`]: message });
    // The first rule's words win at a path, as on the server.
    expect(problemsOf({ name: 'j', type: 'json', max_size: 0 })).toEqual({ [`${at}.max_size`]: message });
    expect(problemsOf({ name: 'title', type: 'text', mime_types: [] })).toEqual({});
  });

  it('keeps max_files to files columns, between 1 and 100', () => {
    expect(problemsOf({ name: 'cover', type: 'file', max_files: 2 })).toEqual({ [`${at}.max_files`]: 'max_files applies to files columns only' });
    expect(problemsOf({ name: 'photos', type: 'files', max_files: 0 })).toEqual({ [`${at}.max_files`]: 'must be between 1 and 100' });
    expect(problemsOf({ name: 'photos', type: 'files', max_files: 101 })).toEqual({ [`${at}.max_files`]: 'must be between 1 and 100' });
  });

  it('wants a max_size of at least one byte', () => {
    expect(problemsOf({ name: 'cover', type: 'file', max_size: 0 })).toEqual({ [`${at}.max_size`]: 'must be at least 1 (bytes)' });
    expect(problemsOf({ name: 'photos', type: 'files', max_size: -5 })).toEqual({ [`${at}.max_size`]: 'must be at least 1 (bytes)' });
  });

  it('names the first mime type that is no media type', () => {
    expect(problemsOf({ name: 'cover', type: 'file', mime_types: ['image/png', 'Image/JPEG', 'nope'] })).toEqual({
      [`${at}.mime_types`]: '"Image/JPEG" is not a media type such as image/png or image/*',
    });
  });

  it('gives a file column no default and no backfill', () => {
    expect(problemsOf({ name: 'cover', type: 'file', default: 'x.png', backfill: 'x.png' })).toEqual({
      [`${at}.default`]: 'a file column takes no default (its values are uploaded files)',
      [`${at}.backfill`]: 'a file column takes no backfill (its values are uploaded files)',
    });
    expect(problemsOf({ name: 'photos', type: 'files', default: [] })).toEqual({
      [`${at}.default`]: 'a files column takes no default (its values are uploaded files)',
    });
    expect(problemsOf({ name: 'photos', type: 'files', default: null, backfill: null })).toEqual({});
  });

  it('lets no file column be unique or indexed', () => {
    expect(problemsOf({ name: 'cover', type: 'file', unique: true })).toEqual({ [`${at}.unique`]: 'file columns cannot be unique' });
    expect(problemsOf({ name: 'photos', type: 'files', index: true })).toEqual({ [`${at}.index`]: 'files columns cannot be indexed' });
  });
});
