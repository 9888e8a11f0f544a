import { Route, Routes } from 'react-router';
import { PolicyEditorPage } from './PolicyEditorPage';
import { PolicyListPage } from './PolicyListPage';
import { PolicyRevisionsPage } from './PolicyRevisionsPage';

export function PoliciesPage() {
  return (
    <Routes>
      <Route index element={<PolicyListPage />} />
      <Route path="new" element={<PolicyEditorPage />} />
      <Route path=":name" element={<PolicyEditorPage />} />
      <Route path=":name/revisions" element={<PolicyRevisionsPage />} />
    </Routes>
  );
}
