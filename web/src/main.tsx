import '@radix-ui/themes/styles.css';
import './shared/controls.css';
import { Theme } from '@radix-ui/themes';
import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { createQueryClient } from './app/query-client';

const queryClient = createQueryClient();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <Theme accentColor="indigo" grayColor="slate" radius="medium">
        <App />
      </Theme>
    </QueryClientProvider>
  </StrictMode>,
);
