import { lazy, Suspense } from 'react';
import { SignInPage } from '../pages/sign-in/SignInPage';
import { Loading } from './Loading';
import { ScreenErrorBoundary } from './ScreenErrorBoundary';
import { useSession } from '../shared/session.hooks';

// The first screen is the sign-in page: it needs neither the router nor any screen, so they
// load only once there is a session (docs/architecture.md, the panel).
const SignedIn = lazy(() => import('./SignedIn'));

export function App() {
  const session = useSession();
  if (session.isPending) return <Loading />;
  if (session.data == null) return <SignInPage failure={session.error} />;
  return (
    <ScreenErrorBoundary>
      <Suspense fallback={<Loading />}>
        <SignedIn session={session.data} />
      </Suspense>
    </ScreenErrorBoundary>
  );
}
