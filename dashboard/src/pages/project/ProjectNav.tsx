import { NavLink as MantineNavLink, Stack } from '@mantine/core';
import {
  IconApi,
  IconChartLine,
  IconDatabase,
  IconFlask,
  IconHierarchy2,
  IconListDetails,
  IconMail,
  IconRocket,
  IconSettings,
  IconUsers,
  IconWebhook,
  IconHistory,
} from '@tabler/icons-react';
import { NavLink, useLocation } from 'react-router';

const SECTIONS = [
  { to: 'schema', label: 'Schema', icon: IconHierarchy2 },
  { to: 'generate', label: 'Generate', icon: IconRocket },
  { to: 'docs', label: 'API Docs', icon: IconApi },
  { to: 'test', label: 'Test', icon: IconFlask },
  { to: 'data', label: 'Data', icon: IconDatabase },
  { to: 'analytics', label: 'Analytics', icon: IconChartLine },
  { to: 'logs', label: 'Logs', icon: IconListDetails },
  { to: 'webhooks', label: 'Webhooks', icon: IconWebhook },
  { to: 'email', label: 'Email', icon: IconMail },
  { to: 'settings', label: 'Settings', icon: IconSettings },
  { to: 'members', label: 'Members', icon: IconUsers },
  { to: 'audit', label: 'Audit log', icon: IconHistory },
];

export function ProjectNav({ projectId, onNavigate }: { projectId: string; onNavigate: () => void }) {
  const { pathname } = useLocation();
  return (
    <Stack gap={2} component="ul" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
      {SECTIONS.map(({ to, label, icon: Icon }) => {
        const href = `/projects/${projectId}/${to}`;
        const active = pathname === href || pathname.startsWith(`${href}/`);
        return (
          <li key={to}>
            <MantineNavLink
              component={NavLink}
              to={href}
              label={label}
              leftSection={<Icon size={18} aria-hidden />}
              active={active}
              aria-current={active ? 'page' : undefined}
              onClick={onNavigate}
            />
          </li>
        );
      })}
    </Stack>
  );
}
