export function BlockedPage() {
  return null;
}
