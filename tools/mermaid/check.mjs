// check.mjs parses Mermaid files with the real Mermaid parser (mermaid.parse under Node, no
// browser) and exits 1 when any file does not parse. Mermaid sanitises labels with DOMPurify,
// which needs a DOM: jsdom provides one.
// Usage: node check.mjs FILE...   (prints "ok FILE: TYPE" or "FAIL FILE: message" per file)
import { readFileSync } from 'node:fs';
import { JSDOM } from 'jsdom';

const dom = new JSDOM('<!doctype html><html><body></body></html>');
globalThis.window = dom.window;
globalThis.document = dom.window.document;

const { default: mermaid } = await import('mermaid');
mermaid.initialize({ startOnLoad: false });
let bad = 0;
for (const f of process.argv.slice(2)) {
  try {
    const r = await mermaid.parse(readFileSync(f, 'utf8'));
    console.log(`ok ${f}: ${r.diagramType}`);
  } catch (e) {
    bad++;
    console.log(`FAIL ${f}: ${String((e && e.message) || e).split('\n').join(' | ')}`);
  }
}
process.exit(bad ? 1 : 0);
