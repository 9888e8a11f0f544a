import { Flex, Spinner, Text } from '@radix-ui/themes';
import { Navigate, Route, Routes } from 'react-router';
import { AuditPage } from '../pages/audit/AuditPage';
import { BlockedPage } from '../pages/blocked/BlockedPage';
import { IdentifiersPage } from '../pages/identifiers/IdentifiersPage';
import { OverviewPage } from '../pages/overview/OverviewPage';
import { PenaltiesPage } from '../pages/penalties/PenaltiesPage';
import { PoliciesPage } from '../pages/policies/PoliciesPage';
import { SignInPage } from '../pages/sign-in/SignInPage';
import { Layout } from './Layout';
import { useSession } from './session';

export function App() {
  const session = useSession();
  if (session.isPending) {
    return (
      <Flex align="center" justify="center" gap="2" p="9">
        <Spinner /> <Text>Loading…</Text>
      </Flex>
    );
  }
  if (session.data == null) return <SignInPage failure={session.error} />;
  return (
    <Routes>
      <Route element={<Layout session={session.data} />}>
        <Route index element={<OverviewPage />} />
        <Route path="policies/*" element={<PoliciesPage />} />
        <Route path="blocked" element={<BlockedPage />} />
        <Route path="identifiers" element={<IdentifiersPage />} />
        <Route path="penalties" element={<PenaltiesPage />} />
        <Route path="audit" element={<AuditPage />} />
        <Route path="*" element={<Navigate to="/" replace />} />
      </Route>
    </Routes>
  );
}
