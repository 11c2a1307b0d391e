import { formatCount, formatDuration } from "../model/format.js";
import { HistoryDecoder } from "../model/history-codec.js";
import {
  INTERACTIVE_MARK,
  PAGE_EVENTS_ELEMENT_ID,
  PAGE_META_ELEMENT_ID,
  type TracePageMeta,
} from "../model/page-data.js";
import type { TraceEvent } from "../model/trace-event.js";
import { buildTraceModel, type TraceModel, type TreeNode } from "../model/trace-model.js";
import { type RowFilter, visibleRows } from "../model/visible-rows.js";
import { renderDetails } from "./details.js";
import { h, replaceChildren } from "./dom.js";
import { followLive, type LiveStatus } from "./live.js";
import { TreeGrid } from "./tree-grid.js";

/**
 * The viewer page. Paints its frame from the small metadata element at once, then, when the document (with the
 * events element after this script) is in, parses and decodes the events, builds the tree, and follows the live
 * stream in serve mode.
 */
function main(): void {
  const meta = readJson(PAGE_META_ELEMENT_ID) as TracePageMeta | undefined;
  if (meta?.version !== 1) {
    document.body.appendChild(h("p", { class: "fatal" }, "This page carries no trace data."));
    return;
  }
  const app = new Viewer(meta);
  document.body.appendChild(app.element);
  whenParsed(() => {
    const events = readJson(PAGE_EVENTS_ELEMENT_ID);
    performance.mark("trace-viewer:data-parsed");
    app.append(Array.isArray(events) ? (events as TraceEvent[]) : []);
    app.loaded();
    performance.mark(INTERACTIVE_MARK);
    if (meta.live) {
      followLive(
        meta.live,
        events => app.append(events),
        status => app.setLiveStatus(status),
      );
    }
  });
}

function readJson(id: string): unknown {
  const text = document.getElementById(id)?.textContent;
  return text ? JSON.parse(text) : undefined;
}

function whenParsed(run: () => void): void {
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", run, { once: true });
  else run();
}

class Viewer {
  readonly element: HTMLElement;
  private readonly events: TraceEvent[] = [];
  private readonly decoder = new HistoryDecoder();
  private model: TraceModel = buildTraceModel([]);
  private isLoaded = false;
  private readonly collapsed = new Set<string>();
  private filter: RowFilter = {};
  private selectedId: string | undefined;
  /** What the details pane shows, so a live update re-renders it only when the selected node changed. */
  private detailsSignature = "";
  private rows: TreeNode[] = [];
  private readonly grid: TreeGrid;
  private readonly totals = h("div", { class: "totals", attrs: { "aria-label": "Totals" } });
  private readonly details = h("aside", { class: "details-pane", attrs: { "aria-label": "Details" } });
  private readonly agentSelect = h("select", { attrs: { "aria-label": "Agent" }, id: "filter-agent" });
  private readonly typeSelect = h("select", { attrs: { "aria-label": "Type" }, id: "filter-type" });
  private readonly search = h("input", {
    type: "search",
    id: "filter-text",
    placeholder: "Search text, tool input, results, error codes…",
    attrs: { "aria-label": "Search" },
  });
  private readonly errorsButton = h("button", { type: "button", class: "errors-button", id: "show-errors" });
  private readonly rowCount = h("span", { class: "row-count" });
  private readonly liveStatus = h("span", { class: "live-status" });
  private readonly empty = h("p", { class: "empty" });
  private optionKey = "";

  constructor(meta: TracePageMeta) {
    document.title = meta.title;
    this.empty.textContent = `Loading ${formatCount(meta.eventCount)} events…`;
    this.grid = new TreeGrid({
      onSelect: node => this.select(node),
      onToggle: node => this.toggle(node),
    });

    let debounce = 0;
    this.search.addEventListener("input", () => {
      clearTimeout(debounce);
      debounce = window.setTimeout(() => this.setFilter({ text: this.search.value }), 120);
    });
    this.agentSelect.addEventListener("change", () => this.setFilter({ source: this.agentSelect.value }));
    this.typeSelect.addEventListener("change", () => this.setFilter({ type: this.typeSelect.value }));
    this.errorsButton.addEventListener("click", () => {
      this.typeSelect.value = this.filter.type === "errors" ? "" : "errors";
      this.setFilter({ type: this.typeSelect.value });
    });
    const expandAll = h("button", { type: "button", id: "expand-all" }, "Expand all");
    expandAll.addEventListener("click", () => {
      this.collapsed.clear();
      this.refresh();
    });
    const collapseAll = h("button", { type: "button", id: "collapse-all" }, "Collapse all");
    collapseAll.addEventListener("click", () => {
      for (const node of this.model.nodes.values())
        if (node.children.length && node.kind !== "run") this.collapsed.add(node.id);
      this.refresh();
    });

    this.element = h(
      "div",
      { class: "app" },
      h(
        "header",
        { class: "top" },
        h(
          "div",
          { class: "title-line" },
          h("h1", null, meta.title),
          h("span", { class: "files", title: meta.files.join("\n") }, meta.files.join(", ")),
          this.liveStatus,
        ),
        this.totals,
      ),
      h(
        "div",
        { class: "toolbar", role: "toolbar" },
        h("label", null, "Agent ", this.agentSelect),
        h("label", null, "Type ", this.typeSelect),
        this.search,
        this.errorsButton,
        expandAll,
        collapseAll,
        this.rowCount,
      ),
      h(
        "main",
        { class: "panes" },
        h("div", { class: "grid-pane" }, this.grid.element, this.empty),
        this.details,
      ),
    );
    this.renderDetails();
  }

  /**
   * Events (history-encoded) from the page or, live, appended to the files. Rebuilds the model (a linear pass) and
   * keeps selection, collapse and filters.
   */
  append(events: TraceEvent[]): void {
    if (!events.length) return;
    for (const event of events) this.events.push(this.decoder.decode(event));
    this.model = buildTraceModel(this.events);
    if (!this.isLoaded) return; // loaded() renders once
    this.refresh();
    this.renderDetails();
  }

  /** The embedded events are in: render the tree. */
  loaded(): void {
    this.isLoaded = true;
    this.empty.textContent = "No events in these files yet.";
    this.refresh();
    this.renderDetails();
  }

  setLiveStatus(status: LiveStatus): void {
    this.liveStatus.textContent = status === "live" ? "● live" : status;
    this.liveStatus.className = `live-status ${status}`;
  }

  refresh(): void {
    this.renderOptions();
    this.renderTotals();
    const { rows, matched } = visibleRows(this.model, this.collapsed, this.filter);
    this.rows = rows;
    this.grid.update({
      model: this.model,
      rows,
      matched,
      collapsed: this.collapsed,
      selectedId: this.selectedId,
    });
    this.empty.hidden = this.model.totals.events > 0;
    this.rowCount.textContent = matched
      ? `${formatCount(matched.size)} matching rows`
      : `${formatCount(rows.length)} rows`;
  }

  private setFilter(change: RowFilter): void {
    this.filter = { ...this.filter, ...change };
    this.errorsButton.classList.toggle("active", this.filter.type === "errors");
    this.refresh();
  }

  private toggle(node: TreeNode): void {
    if (this.collapsed.has(node.id)) this.collapsed.delete(node.id);
    else this.collapsed.add(node.id);
    this.refresh();
  }

  private select(node: TreeNode): void {
    this.selectedId = node.id;
    let index = this.rows.indexOf(node);
    if (index < 0) {
      // Selected from the details pane (a delegated run inside a collapsed call): expand its ancestors.
      for (let at = node.parent; at; at = at.parent) this.collapsed.delete(at.id);
      this.refresh();
      index = this.rows.indexOf(node);
    } else {
      this.refresh();
    }
    if (index >= 0) this.grid.reveal(index);
    this.renderDetails();
    this.grid.focus();
  }

  private renderDetails(): void {
    const node = this.selectedId === undefined ? undefined : this.model.nodes.get(this.selectedId);
    const signature = node ? `${node.id}|${node.events.length}|${node.children.length}|${node.end}` : "none";
    if (signature === this.detailsSignature) return;
    this.detailsSignature = signature;
    if (!node) {
      replaceChildren(
        this.details,
        h(
          "div",
          { class: "hint" },
          h("h2", null, "Select a row"),
          h(
            "p",
            null,
            "A turn shows its full request and response, a tool call its input and result, a run its prompt, result and tokens.",
          ),
          h("p", null, "Keys: ↑ ↓ to move, ← → to collapse and expand."),
        ),
      );
      return;
    }
    replaceChildren(
      this.details,
      renderDetails(node, { model: this.model, select: target => this.select(target) }),
    );
  }

  private renderOptions(): void {
    const key = `${this.model.sources.join("\u0000")}\u0001${this.model.eventTypes.join("\u0000")}`;
    if (key === this.optionKey) return;
    this.optionKey = key;
    const option = (value: string, text: string) => h("option", { value }, text);
    replaceChildren(
      this.agentSelect,
      option("", "All agents"),
      this.model.sources.map(source => option(source, source)),
    );
    this.agentSelect.value = this.filter.source ?? "";
    replaceChildren(
      this.typeSelect,
      option("", "All types"),
      option("run", "Runs"),
      option("turn", "Model turns"),
      option("tool", "Tool calls"),
      option("delegation", "Delegations"),
      option("member", "Team members"),
      option("errors", "Errors"),
      this.model.eventTypes.map(type => option(`event:${type}`, type)),
    );
    this.typeSelect.value = this.filter.type ?? "";
  }

  private renderTotals(): void {
    const { totals } = this.model;
    const wall =
      Number.isFinite(this.model.start) && Number.isFinite(this.model.end)
        ? this.model.end - this.model.start
        : 0;
    const item = (key: string, label: string, value: string, title?: string) =>
      h(
        "div",
        { class: `total${key === "errors" && totals.errors ? " has-error" : ""}`, title },
        h("span", { class: "total-label" }, label),
        h("span", { class: "total-value", attrs: { "data-total": key } }, value),
      );
    replaceChildren(
      this.totals,
      item("events", "events", formatCount(totals.events)),
      item("runs", "runs", formatCount(totals.runs)),
      item("turns", "turns", formatCount(totals.turns)),
      item("tool_calls", "tool calls", formatCount(totals.toolCalls)),
      item("errors", "errors", formatCount(totals.errors)),
      item("input_tokens", "input", formatCount(totals.input_tokens), "input_tokens, all turns"),
      item("output_tokens", "output", formatCount(totals.output_tokens), "output_tokens, all turns"),
      item(
        "cache_creation_input_tokens",
        "cache writes",
        formatCount(totals.cache_creation_input_tokens),
        "cache_creation_input_tokens, all turns",
      ),
      item(
        "cache_read_input_tokens",
        "cache reads",
        formatCount(totals.cache_read_input_tokens),
        "cache_read_input_tokens, all turns",
      ),
      item("wall_time", "wall time", formatDuration(wall) || "0 ms"),
    );
    this.errorsButton.textContent = `${formatCount(totals.errors)} error${totals.errors === 1 ? "" : "s"}`;
    this.errorsButton.disabled = totals.errors === 0 && this.filter.type !== "errors";
  }
}

main();
