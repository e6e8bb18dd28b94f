// Bundles the page into ../dist (embedded by cmd/examtui/internal/candidate/web): index.html at the root,
// the script and the style sheet under assets/. Run by `make web` (npm run build).
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, rmSync, statSync } from 'node:fs';

const out = new URL('../dist/', import.meta.url);
const assets = new URL('assets/', out);
rmSync(assets, { recursive: true, force: true });
mkdirSync(assets, { recursive: true });
await build({
  entryPoints: ['page.js'],
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['chrome100', 'firefox100', 'safari15'],
  legalComments: 'linked',
  outfile: new URL('page.js', assets).pathname,
  logLevel: 'warning',
});
copyFileSync('page.css', new URL('page.css', assets));
copyFileSync('index.html', new URL('index.html', out));
const size = statSync(new URL('page.js', assets)).size;
console.log(`candidate page: dist/assets/page.js ${(size / 1024).toFixed(0)} KiB`);
