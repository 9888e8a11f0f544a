import { Theme } from '@radix-ui/themes';
import { cleanup, render, screen } from '@testing-library/react';
import { lazy, Suspense } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ScreenErrorBoundary } from './ScreenErrorBoundary';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('ScreenErrorBoundary', () => {
  it('shows why a screen failed to load and offers a reload, instead of a blank panel', async () => {
    // React reports the caught error on the console; the test needs only what the user sees.
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const Missing = lazy(() =>
      Promise.reject(new Error('Failed to fetch dynamically imported module: /sluice/assets/x.js')),
    );
    render(
      <Theme>
        <p>Sluice</p>
        <ScreenErrorBoundary>
          <Suspense fallback={<p>Loading…</p>}>
            <Missing />
          </Suspense>
        </ScreenErrorBoundary>
      </Theme>,
    );
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toMatch(
      /could not be shown \(Failed to fetch dynamically imported module/,
    );
    expect(screen.getByRole('button', { name: 'Reload the panel' }).textContent).toBe(
      'Reload the panel',
    );
    expect(screen.getByText('Sluice').tagName).toBe('P');
  });
});
