export function PenaltiesPage() {
  return null;
}
