export function IdentifiersPage() {
  return null;
}
