import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The panel is served by @sluice/admin at /sluice, so it is built into the admin package's dist.
 * `npm run dev:web` serves it with hot reload and proxies the API to a demo on SLUICE_API_PORT.
 */
export default defineConfig(({ command }) => {
  // A build is what ships in @sluice/admin, so it is React's production build whatever NODE_ENV
  // the shell has (Vite reads it after this file): with NODE_ENV=test or development it would
  // ship React's development build, which spends most of a core redrawing the live charts.
  if (command === 'build') process.env.NODE_ENV = 'production';
  return {
    // The build has no base of its own: the admin serves index.html with a <base> relative to
    // the request (panel.files.ts), so one build works under any prefix, path or proxy.
    base: command === 'build' ? './' : '/sluice/',
    plugins: [react()],
    resolve: {
      alias: {
        '@sluice/admin/api': source('../libs/sluice-admin/src/admin-api.types.ts'),
        '@sluice/nest/simulator': source('../libs/sluice/src/simulator/index.ts'),
      },
    },
    build: {
      outDir: source('../libs/sluice-admin/dist/panel'),
      emptyOutDir: true,
    },
    server: {
      proxy: {
        '/sluice/api': `http://127.0.0.1:${process.env.SLUICE_API_PORT ?? '3000'}`,
      },
    },
  };
});
