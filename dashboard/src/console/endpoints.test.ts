import { describe, expect, it } from 'vitest';
import { endpointPurpose } from './endpoints';

describe('endpoint purposes', () => {
  it('tell the collection operations from the record ones', () => {
    expect(endpointPurpose('PATCH', '/books')).toBe('Update the records of books that match a filter');
    expect(endpointPurpose('PATCH', '/books/{id}')).toBe('Update fields of a record of books');
    expect(endpointPurpose('DELETE', '/books')).toBe('Delete the records of books that match a filter');
    expect(endpointPurpose('get', '/books')).toContain('format=csv');
    expect(endpointPurpose('GET', '/books/aggregate')).toContain('by group');
  });

  it('name the auth routes, the stream and the description', () => {
    expect(endpointPurpose('POST', '/auth/login')).toBe('Sign an end user in; answers tokens');
    expect(endpointPurpose('POST', '/auth/password-reset/confirm')).toBe('Set a new password with a reset token; answers tokens');
    expect(endpointPurpose('GET', '/realtime')).toContain('Server-Sent Events');
    expect(endpointPurpose('GET', '/openapi.json')).toContain('OpenAPI');
  });

  it('say nothing of a path they do not know', () => {
    expect(endpointPurpose('GET', '/books/{id}/extra')).toBe('');
  });
});
