import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider as AriaRouterProvider } from 'react-aria-components';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { ApiError } from './api/client';
import { routes } from './routes';
import { ME } from './session/session';
import './ui/theme.css';

/** A 401 anywhere means the session ended: asking who is signed in again sends the user to sign in. */
function onError(error: unknown) {
  if (error instanceof ApiError && error.status === 401) queryClient.setQueryData(ME, null);
}

const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError }),
  mutationCache: new MutationCache({ onError }),
  defaultOptions: {
    queries: {
      // 4xx answers do not change on retry; only network trouble and 5xx are retried.
      retry: (count, error) => count < 2 && !(error instanceof ApiError && error.status < 500),
    },
  },
});

const router = createBrowserRouter(routes);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <AriaRouterProvider navigate={(path) => router.navigate(path)} useHref={(href) => href}>
        <RouterProvider router={router} />
      </AriaRouterProvider>
    </QueryClientProvider>
  </StrictMode>,
);
