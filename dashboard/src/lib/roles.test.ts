import { describe, expect, it } from 'vitest';
import { atLeast, roleNeeded } from './roles';

describe('roles', () => {
  it('orders owner over admin over developer over viewer', () => {
    expect(atLeast('owner', 'admin')).toBe(true);
    expect(atLeast('admin', 'admin')).toBe(true);
    expect(atLeast('developer', 'admin')).toBe(false);
    expect(atLeast('viewer', 'developer')).toBe(false);
    expect(atLeast('viewer', 'viewer')).toBe(true);
  });
  it('grants nothing to an unknown or missing role', () => {
    expect(atLeast(undefined, 'viewer')).toBe(false);
    expect(atLeast('root', 'viewer')).toBe(false);
  });
  it('names the role needed', () => {
    expect(roleNeeded('developer')).toBe('Needs the developer role or higher');
    expect(roleNeeded('owner')).toBe('Only the project owner can do this');
  });
});
