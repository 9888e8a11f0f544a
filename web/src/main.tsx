import '@radix-ui/themes/styles.css';
import './shared/controls.css';
import { Theme } from '@radix-ui/themes';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ApiError } from './api/client';
import { App } from './app/App';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A refusal (401, 403, 404, 400) will not change by asking again.
      retry: (failures, error) =>
        !(error instanceof ApiError && error.status < 500) && failures < 2,
      refetchOnWindowFocus: false,
    },
  },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <Theme accentColor="indigo" grayColor="slate" radius="medium">
        <App />
      </Theme>
    </QueryClientProvider>
  </StrictMode>,
);
