import { Anchor, AppShell, Burger, Group, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Suspense } from 'react';
import { Link, Outlet } from 'react-router';
import { isApiError } from '../../api/client';
import { AccountMenu } from '../../components/AccountMenu';
import { BrandMark } from '../../components/BrandMark';
import { EmptyState } from '../../components/EmptyState';
import { ErrorAlert } from '../../components/ErrorAlert';
import { LoadingState } from '../../components/LoadingState';
import { useProjectQuery } from '../../data/projects/project-query';
import { ProjectNav } from './ProjectNav';
import { useProjectId } from './useProjectId';

export function ProjectLayout() {
  const projectId = useProjectId();
  const project = useProjectQuery(projectId);
  const [navOpen, nav] = useDisclosure(false);

  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 210, breakpoint: 'sm', collapsed: { mobile: !navOpen } }} padding="md">
      <a className="skip-link" href="#main-content">
        Skip to content
      </a>
      <AppShell.Header px="md">
        <Group h="100%" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap" style={{ minWidth: 0 }}>
            <Burger opened={navOpen} onClick={nav.toggle} hiddenFrom="sm" size="sm" aria-label="Toggle project menu" />
            <Anchor component={Link} to="/projects" underline="never" c="inherit" aria-label="All projects">
              <BrandMark />
            </Anchor>
            <Text c="dimmed" aria-hidden visibleFrom="xs">
              /
            </Text>
            <Text fw={600} truncate="end" visibleFrom="xs">
              {project.data?.name ?? '…'}
            </Text>
          </Group>
          <AccountMenu />
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Project sections">
        <ProjectNav projectId={projectId} onNavigate={nav.close} />
      </AppShell.Navbar>
      <AppShell.Main id="main-content">
        {project.isPending && <LoadingState label="Loading project…" />}
        {project.error &&
          (isApiError(project.error, 'NOT_FOUND') ? (
            <EmptyState title="Project not found" action={<Anchor component={Link} to="/projects">Back to your projects</Anchor>}>
              It may have been deleted, or it belongs to another account.
            </EmptyState>
          ) : (
            <ErrorAlert error={project.error} title="Could not load the project" />
          ))}
        {project.data && (
          <Suspense fallback={<LoadingState />}>
            <Outlet context={project.data} />
          </Suspense>
        )}
      </AppShell.Main>
    </AppShell>
  );
}
