import type { SessionView } from '@sluice/admin/api';
import { lazy, Suspense } from 'react';
import { BrowserRouter, Navigate, Route, Routes, useLocation } from 'react-router';
import { PANEL_BASE } from '../api/panel-base';
import { Layout } from './Layout';
import { Loading } from './Loading';
import { ScreenErrorBoundary } from './ScreenErrorBoundary';

// Each screen is its own chunk, loaded when first opened: the charts' library comes only with
// the Overview, the editor's with Policies.
const OverviewPage = lazy(() =>
  import('../pages/overview/OverviewPage').then((m) => ({ default: m.OverviewPage })),
);
const PoliciesPage = lazy(() =>
  import('../pages/policies/PoliciesPage').then((m) => ({ default: m.PoliciesPage })),
);
const BlockedPage = lazy(() =>
  import('../pages/blocked/BlockedPage').then((m) => ({ default: m.BlockedPage })),
);
const ListsPage = lazy(() =>
  import('../pages/lists/ListsPage').then((m) => ({ default: m.ListsPage })),
);
const IdentifiersPage = lazy(() =>
  import('../pages/identifiers/IdentifiersPage').then((m) => ({ default: m.IdentifiersPage })),
);
const PenaltiesPage = lazy(() =>
  import('../pages/penalties/PenaltiesPage').then((m) => ({ default: m.PenaltiesPage })),
);
const AuditPage = lazy(() =>
  import('../pages/audit/AuditPage').then((m) => ({ default: m.AuditPage })),
);

/** The panel once signed in: the router, the layout and the screens. */
export default function SignedIn({ session }: { session: SessionView }) {
  return (
    <BrowserRouter basename={PANEL_BASE.replace(/\/$/, '')}>
      <Routes>
        <Route element={<Layout session={session} />}>
          <Route index element={<Screen page={<OverviewPage />} />} />
          <Route path="policies/*" element={<Screen page={<PoliciesPage />} />} />
          <Route path="blocked" element={<Screen page={<BlockedPage />} />} />
          <Route path="lists" element={<Screen page={<ListsPage />} />} />
          <Route path="identifiers" element={<Screen page={<IdentifiersPage />} />} />
          <Route path="penalties" element={<Screen page={<PenaltiesPage />} />} />
          <Route path="audit" element={<Screen page={<AuditPage />} />} />
          <Route path="*" element={<Navigate to="/" replace />} />
        </Route>
      </Routes>
    </BrowserRouter>
  );
}

/**
 * A screen loading its chunk shows the spinner inside the layout, which stays in place; one that
 * fails shows why, and opening another screen tries afresh.
 */
function Screen({ page }: { page: React.ReactNode }) {
  const { pathname } = useLocation();
  return (
    <ScreenErrorBoundary key={pathname}>
      <Suspense fallback={<Loading />}>{page}</Suspense>
    </ScreenErrorBoundary>
  );
}
