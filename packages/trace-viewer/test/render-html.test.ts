// renderTraceHtml (issue 17): one self-contained page; trace data embedded so it cannot end its script element;
// a CSP that allows exactly the inline script and stylesheet; bad input named.
import { createHash } from "node:crypto";
import { InvalidOptionError } from "@agent-lattice/core";
import { describe, expect, it } from "vitest";
import { jsonForScriptElement } from "../src/html-text.js";
import { renderTraceHtml } from "../src/index.js";
import { runEvents } from "./support/events.js";

const hostile =
  "</script><script>globalThis.pwned=1</script><!-- <img src=x onerror=alert(1)> \u2028\u2029 &amp;";

function sample() {
  const run = runEvents("r1", "agent");
  run.start(hostile);
  run.turn(1, [{ type: "text", text: hostile }]);
  run.result();
  return run.events;
}

const between = (html: string, start: string, end: string) => {
  const from = html.indexOf(start);
  return html.slice(from + start.length, html.indexOf(end, from + start.length));
};

describe("embedding", () => {
  it("JSON for a script element has no '<', '>', '&' or raw U+2028/2029, and parses back to the same value", () => {
    const value = { text: hostile, nested: [hostile, { [hostile]: 1 }] };
    const json = jsonForScriptElement(value);
    expect(json).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(json)).toEqual(value);
  });

  it("the page's data elements hold the events exactly, and the hostile text occurs nowhere raw", () => {
    const events = sample();
    const html = renderTraceHtml(events, { title: hostile, files: [hostile] });
    expect(html).not.toContain("<script><script>");
    expect(html.split("</script>")).toHaveLength(4); // the ends of the two data elements and the viewer, nothing else
    expect(html).not.toContain("<!-- ");
    const meta = JSON.parse(
      between(html, '<script type="application/json" id="al-trace-meta">', "</script>"),
    );
    expect(meta).toMatchObject({ version: 1, title: hostile, files: [hostile], eventCount: events.length });
    const embedded = JSON.parse(
      between(html, '<script type="application/json" id="al-trace-events">', "</script>"),
    );
    expect(embedded).toEqual(events);
    expect(between(html, "<title>", "</title>")).toBe(
      "&lt;/script&gt;&lt;script&gt;globalThis.pwned=1&lt;/script&gt;&lt;!-- &lt;img src=x onerror=alert(1)&gt; \u2028\u2029 &amp;amp;",
    );
  });
});

describe("Content-Security-Policy", () => {
  it("allows exactly the inline script and stylesheet by hash, nothing else, with Trusted Types", () => {
    const html = renderTraceHtml(sample());
    const csp = between(html, '<meta http-equiv="Content-Security-Policy" content="', '">');
    const script = between(html, "<script>", "</script>");
    const style = between(html, "<style>", "</style>");
    const hash = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;
    const directives = Object.fromEntries(
      csp.split(";").map(part => {
        const [name, ...values] = part.trim().split(/\s+/);
        return [name, values.join(" ")];
      }),
    );
    expect(directives).toEqual({
      "default-src": "'none'",
      "script-src": hash(script),
      "style-src": hash(style),
      "connect-src": "'none'",
      "img-src": "'none'",
      "font-src": "'none'",
      "object-src": "'none'",
      "base-uri": "'none'",
      "form-action": "'none'",
      "require-trusted-types-for": "'script'",
      "trusted-types": "'none'",
    });
    // The policy comes before anything it governs.
    expect(html.indexOf("Content-Security-Policy")).toBeLessThan(html.indexOf("<style>"));
  });

  it("the page script uses no HTML-parsing DOM sink and loads nothing", () => {
    const script = between(renderTraceHtml([]), "<script>", "</script>");
    for (const sink of [
      "innerHTML",
      "outerHTML",
      "insertAdjacentHTML",
      "document.write",
      "eval(",
      "new Function",
      "fetch(",
    ]) {
      expect(script, sink).not.toContain(sink);
    }
  });
});

describe("input", () => {
  it("upgrades version-0 events and refuses entries that are not trace events, naming the index", () => {
    const html = renderTraceHtml([
      {
        run_id: "r",
        seq: 0,
        type: "tool_result",
        source: "a",
        session_id: "s",
        time: "2026-01-01T00:00:00Z",
        data: { name: "x", content: "y" },
      } as never,
    ]);
    const embedded = JSON.parse(between(html, 'id="al-trace-events">', "</script>"));
    expect(embedded[0].data).toMatchObject({ kind: "tool", is_error: false, duration_ms: 0 });

    expect(() => renderTraceHtml([...sample(), { type: "x" } as never])).toThrow(InvalidOptionError);
    expect(() => renderTraceHtml([...sample(), { type: "x" } as never])).toThrow(
      /events\[\d+\] is not a trace event/,
    );
    expect(() => renderTraceHtml("{}" as never)).toThrow(/array \(or iterable\) of trace events/);
    expect(() => renderTraceHtml([], { titel: "x" } as never)).toThrow(/unknown option "titel"/);
  });
});
