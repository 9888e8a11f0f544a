import { Button, Flex } from '@radix-ui/themes';
import { Component, type ReactNode } from 'react';
import { ErrorCallout } from '../shared/ErrorCallout';

interface State {
  error: Error | null;
}

/**
 * Keeps a screen that fails to load or render from blanking the whole panel. The usual cause is
 * an upgrade of the admin while the tab was open: the page asks for the old build's files, which
 * are gone, and only a reload fetches the new ones.
 */
export class ScreenErrorBoundary extends Component<{ children: ReactNode }, State> {
  override state: State = { error: null };

  static getDerivedStateFromError(error: Error): State {
    return { error };
  }

  override render(): ReactNode {
    const { error } = this.state;
    if (error === null) return this.props.children;
    return (
      <Flex direction="column" align="start" gap="3" p="5">
        <ErrorCallout>
          This screen could not be shown ({error.message}). If the admin was updated since the panel
          was opened, reloading fetches the new version.
        </ErrorCallout>
        <Button onClick={() => window.location.reload()}>Reload the panel</Button>
      </Flex>
    );
  }
}
