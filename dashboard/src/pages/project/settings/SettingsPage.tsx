import { Stack } from '@mantine/core';
import { useEffect } from 'react';
import { useLocation, useOutletContext } from 'react-router';
import type { Project } from '../../../api/types';
import { PageHeader } from '../../../components/PageHeader';
import { EXTERNAL_ENGINE } from '../../../external/connection';
import { ApiKeysSection } from './ApiKeysSection';
import { CorsSection } from './CorsSection';
import { DatabaseSection } from './DatabaseSection';
import { DeleteProjectSection } from './DeleteProjectSection';
import { ProjectSection } from './ProjectSection';
import { RoleGate } from '../../../components/RoleGate';
import { SignInProvidersSection } from './SignInProvidersSection';

export function SettingsPage() {
  const project = useOutletContext<Project>();
  const { hash } = useLocation();
  const external = project.engine === EXTERNAL_ENGINE;

  // The builder links to #database; the router does not scroll to it.
  useEffect(() => {
    if (hash === '#database' && external) document.getElementById('database')?.scrollIntoView({ block: 'start' });
  }, [hash, external]);

  return (
    <Stack gap="md" maw={1000}>
      <PageHeader title="Settings" />
      {external && (
        <RoleGate need="admin">
          <DatabaseSection project={project} />
        </RoleGate>
      )}
      <ApiKeysSection projectId={project.id} />
      <RoleGate need="developer">
        <CorsSection key={(project.cors?.allowed_origins ?? []).join(' ')} project={project} />
      </RoleGate>
      <RoleGate need="developer">
        <SignInProvidersSection project={project} />
      </RoleGate>
      <RoleGate need="developer">
        <ProjectSection key={project.name} project={project} />
      </RoleGate>
      <RoleGate need="owner" mode="hide">
        <DeleteProjectSection project={project} />
      </RoleGate>
    </Stack>
  );
}
