import { Anchor, Container } from '@mantine/core';
import { Link } from 'react-router';
import { EmptyState } from '../components/EmptyState';

export function NotFoundPage() {
  return (
    <Container component="main" py="xl">
      <EmptyState title="Page not found" action={<Anchor component={Link} to="/projects">Go to your projects</Anchor>}>
        There is nothing at this address.
      </EmptyState>
    </Container>
  );
}
