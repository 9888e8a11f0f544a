import type { SessionView } from '@sluice/admin/api';
import { Badge, Box, Button, Flex, Heading, Text } from '@radix-ui/themes';
import type { MouseEvent } from 'react';
import { NavLink, Outlet } from 'react-router';
import './layout.css';
import { useSignOut } from '../shared/session.hooks';

const SCREENS = [
  { to: '/', label: 'Overview', end: true },
  { to: '/policies', label: 'Policies', end: false },
  { to: '/blocked', label: 'Blocked', end: false },
  { to: '/lists', label: 'Lists', end: false },
  { to: '/identifiers', label: 'Identifiers', end: false },
  { to: '/penalties', label: 'Penalties', end: false },
  { to: '/audit', label: 'Audit', end: false },
];

export function Layout({ session }: { session: SessionView }) {
  const signOut = useSignOut();
  return (
    <Box className="layout">
      <a className="skip-link" href="#main" onClick={skipToMain}>
        Skip to content
      </a>
      <header className="layout-header">
        <Flex align="center" justify="between" gap="4" wrap="wrap" px="5" py="3">
          <Flex align="center" gap="5" wrap="wrap">
            <Heading as="h1" size="5">
              Sluice
            </Heading>
            <nav aria-label="Screens">
              <Flex asChild gap="1" wrap="wrap">
                <ul className="nav-list">
                  {SCREENS.map((screen) => (
                    <li key={screen.to}>
                      <NavLink to={screen.to} end={screen.end} className="nav-link">
                        {screen.label}
                      </NavLink>
                    </li>
                  ))}
                </ul>
              </Flex>
            </nav>
          </Flex>
          <Flex align="center" gap="3" aria-label="Signed in as">
            <Text size="2">
              Signed in as <strong data-testid="session-name">{session.name}</strong>
            </Text>
            <Badge data-testid="session-role" color={session.role === 'viewer' ? 'gray' : 'indigo'}>
              {session.role}
            </Badge>
            <Button
              variant="soft"
              size="1"
              onClick={() => signOut.mutate()}
              loading={signOut.isPending}
            >
              Sign out
            </Button>
          </Flex>
        </Flex>
      </header>
      <main id="main" className="layout-main" tabIndex={-1}>
        <Outlet />
      </main>
    </Box>
  );
}

/**
 * The panel's <base> points at its root, so "#main" alone would resolve to the Overview: the link
 * moves focus to the main region here instead, on the screen it was used on.
 */
function skipToMain(event: MouseEvent<HTMLAnchorElement>): void {
  event.preventDefault();
  const main = document.getElementById('main');
  main?.focus();
  main?.scrollIntoView();
}
