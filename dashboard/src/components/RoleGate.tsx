import { Tooltip } from '@mantine/core';
import type { ReactNode } from 'react';
import { roleNeeded, type Role } from '../lib/roles';
import { useCan } from '../pages/project/useProjectRole';

/**
 * Shows controls that need a role in the project. Without it they are
 * hidden (mode hide) or shown disabled, with a tooltip naming the role
 * (mode disable): a disabled fieldset turns off every control inside.
 */
export function RoleGate({ need, mode = 'disable', children }: { need: Role; mode?: 'hide' | 'disable'; children: ReactNode }) {
  const allowed = useCan(need);
  if (allowed) return <>{children}</>;
  if (mode === 'hide') return null;
  return (
    <Tooltip label={roleNeeded(need)} withArrow>
      <span style={{ display: 'inline-block' }} data-role-needed={need}>
        <fieldset disabled style={{ border: 0, padding: 0, margin: 0, minWidth: 0 }}>
          {children}
        </fieldset>
      </span>
    </Tooltip>
  );
}
