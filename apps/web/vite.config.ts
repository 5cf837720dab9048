import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// `npm run dev` serves the app here with reload and sends API calls to the service on :4000.
const service = process.env.AGOV_API_URL ?? 'http://127.0.0.1:4000';

export default defineConfig({
  plugins: [react()],
  server: {
    port: 5173,
    proxy: { '/api': service, '/health': service, '/openapi.json': service, '/docs': service },
  },
  build: { outDir: 'dist', sourcemap: true },
});
