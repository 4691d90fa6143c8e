import { defineConfig, defaultClientConditions } from "vite";

// The built app is served by `arbiter serve` at `/`, so asset paths are
// relative and the output is content-hashed (deterministic for a given source).
export default defineConfig({
  base: "./",
  build: {
    outDir: "dist",
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 1024,
  },
  resolve: {
    // @arbiter/client is linked from ../clients/typescript: its imports
    // resolve from this package's node_modules, so there is one copy of
    // each runtime (ConnectError checks need that).
    preserveSymlinks: true,
    dedupe: ["@bufbuild/protobuf", "@connectrpc/connect", "@connectrpc/connect-web"],
    // ... and is bundled from its TypeScript sources, which its package
    // exports under this condition beside the built files it publishes.
    conditions: ["@arbiter/source", ...defaultClientConditions],
  },
  server: {
    host: "127.0.0.1",
  },
});
