// Bundles the page into ../dist (embedded by cmd/examtui/internal/candidate/web), as a static
// site: index.html at the root naming its assets by content (assets/NAME-HASH.EXT, which the
// server sends as immutable), each asset beside its pre-compressed .br and .gz. index.html is a
// Go html/template the server renders in the exam's language (its language pack's page strings,
// <html lang dir>) and compresses once per language. Run by `make web` (npm run build).
//
// livekit-client is loaded by the page with a dynamic import of livekit.js (its own chunk, only
// the exports named there kept), so the Join button does not wait for it. It is livekit-client's
// own ESM build: bundling it from the TypeScript sources its package ships would drop 35 KiB more
// (3 KB with Brotli), but esbuild compiles one of its classes unlike livekit-client's build does
// (the static arrow TypedPromise.resolve loses its `this`), and a reconnection then throws.
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const out = new URL('../dist/', import.meta.url);
const assets = new URL('assets/', out);
for (const name of ['assets', 'index.html', 'index.html.br', 'index.html.gz', 'favicon.svg', 'favicon.svg.br', 'favicon.svg.gz']) {
  rmSync(new URL(name, out), { recursive: true, force: true });
}
mkdirSync(assets, { recursive: true });

const entries = ['page.js', 'page.css', 'favicon.svg'];
const result = await build({
  entryPoints: entries,
  bundle: true,
  splitting: true,
  minify: true,
  format: 'esm',
  target: ['chrome100', 'firefox100', 'safari15'],
  loader: { '.svg': 'copy' },
  entryNames: '[name]-[hash]',
  chunkNames: 'chunk-[hash]',
  legalComments: 'linked',
  outdir: new URL('.', assets).pathname,
  metafile: true,
  logLevel: 'warning',
});

// index.html names each entry point's output (livekit-client, imported dynamically, is an entry
// point of esbuild's own, named by the page's script).
const names = {};
for (const [file, o] of Object.entries(result.metafile.outputs)) {
  if (entries.includes(o.entryPoint)) names[o.entryPoint] = basename(file);
}
let html = readFileSync('index.html', 'utf8');
for (const [entry, hashed] of Object.entries(names)) {
  const from = '/assets/' + entry;
  if (!html.includes(from)) throw new Error(`index.html does not name ${from}`);
  html = html.replaceAll(from, '/assets/' + hashed);
}
writeFileSync(new URL('index.html', out), html);
// /favicon.ico, for what asks for it without reading the page (the same picture).
writeFileSync(new URL('favicon.svg', out), readFileSync('favicon.svg'));

// Each text file pre-compressed, at the strongest settings (this runs once per build).
const textual = /\.(html|js|css|svg|txt)$/;
let wire = 0;
const report = [];
const files = [...Object.keys(result.metafile.outputs).map((f) => new URL(basename(f), assets)), new URL('favicon.svg', out)];
for (const url of files) {
  const raw = readFileSync(url);
  let best = raw.length;
  if (textual.test(url.pathname)) {
    const br = brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } });
    const gz = gzipSync(raw, { level: 9 });
    if (br.length < raw.length) writeFileSync(url.pathname + '.br', br);
    if (gz.length < raw.length) writeFileSync(url.pathname + '.gz', gz);
    best = Math.min(best, br.length);
  }
  if (!url.pathname.endsWith('.LEGAL.txt') && !url.pathname.endsWith('/favicon.svg')) {
    wire += best;
    report.push(`${basename(url.pathname)} ${(raw.length / 1024).toFixed(1)} KiB (br ${(best / 1024).toFixed(1)})`);
  }
}
const page = readFileSync(new URL('index.html', out));
report.push(`index.html ${(page.length / 1024).toFixed(1)} KiB (br ${(brotliCompressSync(page).length / 1024).toFixed(1)}, before its strings)`);
console.log(`candidate page: ${report.join(', ')}; ${(wire / 1024).toFixed(0)} KiB brotli in all`);
