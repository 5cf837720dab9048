import react from '@vitejs/plugin-react';
import { constants } from 'node:zlib';
import { defineConfig } from 'vite';
import { compression, defineAlgorithm } from 'vite-plugin-compression2';

// `npm run dev` serves the app here with reload and sends API calls to the service on :4000.
const service = process.env.AGOV_API_URL ?? 'http://127.0.0.1:4000';

export default defineConfig({
  plugins: [
    react(),
    // A `.br` and a `.gz` beside every text file of the build, which the API sends by the
    // browser's Accept-Encoding: compressed once, at the highest levels, never per request.
    compression({
      algorithms: [
        defineAlgorithm('brotliCompress', { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY } }),
        defineAlgorithm('gzip', { level: constants.Z_BEST_COMPRESSION }),
      ],
    }),
  ],
  server: {
    port: 5173,
    proxy: { '/api': service, '/health': service, '/openapi.json': service, '/docs': service },
  },
  // Maps would publish the source to anyone; a build for debugging asks for them.
  build: { outDir: 'dist', sourcemap: process.env.DASHBOARD_SOURCEMAPS === 'true' },
});
