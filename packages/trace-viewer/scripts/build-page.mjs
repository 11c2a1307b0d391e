// Builds the viewer page's script and stylesheet (src/page/) into dist/viewer-page.js and dist/viewer-page.css,
// which renderTraceHtml() inlines into every page under CSP hashes. The page is one minified IIFE with no
// imports: it must run from a file:// URL with no network, so a bare import (a package) is a build error rather
// than a global the page would look for at run time. Run from the package directory (the build script does).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { build } from "rolldown";

const output = await build({
  input: "src/page/main.ts",
  platform: "browser",
  write: false,
  plugins: [
    {
      name: "no-packages-in-the-page",
      resolveId(id, importer) {
        if (importer && !id.startsWith(".") && !id.startsWith("/"))
          throw new Error(
            `build-page: ${importer} imports "${id}"; the page may import only its own modules (type imports are fine).`,
          );
        return null;
      },
    },
  ],
  output: { format: "iife", minify: true, comments: { legal: false } },
  logLevel: "warn",
});
const script = output.output[0].code;

// The stylesheet: comments and indentation dropped (it is small; no minifier needed).
const style = readFileSync("src/page/viewer.css", "utf8")
  .replace(/\/\*[\s\S]*?\*\//g, "")
  .replace(/\s*\n\s*/g, " ")
  .replace(/\s{2,}/g, " ")
  .trim();

// Both are inlined in <script>/<style> elements: text that would end the element early or open an HTML comment
// must not occur (renderTraceHtml checks again before it trusts a hash).
for (const [name, text] of [
  ["script", script],
  ["style", style],
]) {
  if (/<\/(script|style)|<!--/i.test(text))
    throw new Error(`build-page: the page ${name} contains "</script", "</style" or "<!--"`);
}

mkdirSync("dist", { recursive: true });
writeFileSync("dist/viewer-page.js", script);
writeFileSync("dist/viewer-page.css", style);
