import type { PageAssets } from "./page-assets.js";

/**
 * The page's Content-Security-Policy: nothing may load or run except the one inline script and stylesheet
 * (allowed by their SHA-256 hashes), and Trusted Types with no policy make every HTML-parsing DOM sink
 * (innerHTML, outerHTML, insertAdjacentHTML, document.write) throw, so trace text can never become markup even
 * through a bug in the page. `live` adds connect-src 'self' for the Server-Sent Events stream of `serve`.
 */
export function contentSecurityPolicy(assets: PageAssets, options: { live: boolean }): string {
  return [
    "default-src 'none'",
    `script-src '${assets.scriptHash}'`,
    `style-src '${assets.styleHash}'`,
    options.live ? "connect-src 'self'" : "connect-src 'none'",
    "img-src 'none'",
    "font-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "require-trusted-types-for 'script'",
    "trusted-types 'none'",
  ].join("; ");
}
