/**
 * Text that goes into the page's HTML, made safe for the exact place it goes. The HTML tokenizer ends a
 * <script> element at the first "</script" whatever JSON or JS quoting surrounds it, and "<!--" switches it into
 * an escaped state, so data is never inlined raw.
 */

/**
 * JSON for a `<script type="application/json">` element: `<`, `>` and `&` as \u escapes (so no "</script", no
 * "<!--", no entity), and U+2028/U+2029 escaped too (valid in JSON, but line terminators to older JS parsers and
 * a classic source of breakage when the text is ever evaluated). JSON.parse of the element's text gives back
 * exactly the value.
 */
export function jsonForScriptElement(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/** Text for element content or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** Text for a double-quoted attribute value (the CSP meta tag keeps its single quotes readable). */
export function escapeAttribute(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/"/g, "&quot;");
}
