import type { AdminRole } from '@sluice/admin/api';
import { Theme } from '@radix-ui/themes';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { vi } from 'vitest';
import { SESSION_KEY } from '../shared/session.hooks';

export interface Answer {
  status?: number;
  body?: unknown;
}

export interface RecordedRequest {
  method: string;
  url: string;
  body: unknown;
}

/**
 * jsdom has no EventSource: this one connects to nothing, and a test sends it the server's
 * events with `TestEventSource.send` (to every stream the screen opened).
 */
export class TestEventSource extends EventTarget {
  static open: TestEventSource[] = [];
  onopen: (() => void) | null = null;
  onerror: (() => void) | null = null;
  closed = false;

  constructor(readonly url: string) {
    super();
    TestEventSource.open.push(this);
  }

  static send(type: string, data: unknown): void {
    for (const source of TestEventSource.open) {
      if (source.closed) continue;
      source.onopen?.();
      source.dispatchEvent(new MessageEvent(type, { data: JSON.stringify(data) }));
    }
  }

  close(): void {
    this.closed = true;
  }
}

/**
 * Answers the panel's fetches from `routes` ("PUT /policies/reply" → answer, or a function of the
 * request) and records every request; an unlisted route answers 404.
 */
export function answerFetch(
  routes: Record<string, Answer | ((request: RecordedRequest) => Answer)>,
): RecordedRequest[] {
  const requests: RecordedRequest[] = [];
  TestEventSource.open = [];
  vi.stubGlobal('EventSource', TestEventSource);
  vi.stubGlobal('fetch', (input: string, init: RequestInit = {}) => {
    const url = new URL(input, 'http://panel.test');
    const method = init.method ?? 'GET';
    const body: unknown = typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
    const request = { method, url: `${url.pathname}${url.search}`, body };
    requests.push(request);
    const route = routes[`${method} ${url.pathname.replace(/^(\/sluice)?\/api/, '')}`];
    const answer =
      typeof route === 'function'
        ? route(request)
        : (route ?? {
            status: 404,
            body: { statusCode: 404, error: 'Not Found', message: 'no such route' },
          });
    return Promise.resolve(
      new Response(
        answer.status === 204
          ? null
          : typeof answer.body === 'string'
            ? answer.body
            : JSON.stringify(answer.body ?? {}),
        {
          status: answer.status ?? 200,
          headers: {
            'content-type': typeof answer.body === 'string' ? 'text/csv' : 'application/json',
          },
        },
      ),
    );
  });
  return requests;
}

/** Renders `element` at `path` (matched by `route`) for someone signed in with `role`. */
export function renderScreen(
  element: ReactElement,
  options: { role: AdminRole; path: string; route?: string },
) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  queryClient.setQueryData(SESSION_KEY, { name: 'tester', role: options.role });
  return render(
    <QueryClientProvider client={queryClient}>
      <Theme>
        <MemoryRouter initialEntries={[options.path]}>
          <Routes>
            <Route path={options.route ?? '*'} element={element} />
          </Routes>
        </MemoryRouter>
      </Theme>
    </QueryClientProvider>,
  );
}
