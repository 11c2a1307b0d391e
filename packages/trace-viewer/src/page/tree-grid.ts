import { badgeOf, errorTitle, labelOf } from "../model/describe.js";
import { formatCount, formatDuration } from "../model/format.js";
import { agentOf, durationOf, type TraceModel, type TreeNode } from "../model/trace-model.js";
import { h, replaceChildren } from "./dom.js";

/** Row height in px; the stylesheet's .row height must match. */
export const ROW_HEIGHT = 24;
/** Rows rendered above and below the viewport, so a fast scroll shows no blank band. */
const OVERSCAN = 12;

export interface TreeGridCallbacks {
  onSelect(node: TreeNode): void;
  onToggle(node: TreeNode): void;
}

export interface TreeGridState {
  model: TraceModel;
  rows: TreeNode[];
  matched: Set<TreeNode> | undefined;
  collapsed: ReadonlySet<string>;
  selectedId: string | undefined;
}

/**
 * The run tree and the waterfall in one virtualized grid: a row per node (name, duration, tokens, a bar placed on
 * the trace's time axis), of which only the rows in view (plus a margin) exist in the DOM, so 10,000 events scroll
 * like 10. Rows are absolutely positioned in a spacer as tall as all rows.
 */
export class TreeGrid {
  readonly element: HTMLElement;
  private readonly body: HTMLElement;
  private readonly spacer: HTMLElement;
  private readonly axis: HTMLElement;
  private state: TreeGridState | undefined;
  private frame = 0;

  constructor(private readonly callbacks: TreeGridCallbacks) {
    this.axis = h("div", { class: "cell waterfall axis" });
    const head = h(
      "div",
      { class: "grid-head row", role: "row" },
      h("div", { class: "cell name" }, "Run / turn / call"),
      h("div", { class: "cell num", title: "Duration" }, "Time"),
      h("div", { class: "cell num", title: "Input tokens" }, "In"),
      h("div", { class: "cell num", title: "Output tokens" }, "Out"),
      h("div", { class: "cell num", title: "Cache writes (cache_creation_input_tokens)" }, "Cache w"),
      h("div", { class: "cell num", title: "Cache reads (cache_read_input_tokens)" }, "Cache r"),
      this.axis,
    );
    this.spacer = h("div", { class: "grid-spacer" });
    this.body = h(
      "div",
      { class: "grid-body", role: "tree", tabindex: "0", attrs: { "aria-label": "Run tree" } },
      this.spacer,
    );
    this.element = h("section", { class: "grid" }, head, this.body);

    this.body.addEventListener("scroll", () => this.schedule());
    window.addEventListener("resize", () => this.schedule());
    this.body.addEventListener("click", event => {
      const target = event.target as Element;
      const row = target.closest(".row[data-index]");
      if (!row || !this.state) return;
      const node = this.state.rows[Number(row.getAttribute("data-index"))];
      if (!node) return;
      if (target.closest(".toggle")) this.callbacks.onToggle(node);
      else this.callbacks.onSelect(node);
    });
    this.body.addEventListener("keydown", event => this.onKey(event));
  }

  update(state: TreeGridState): void {
    const followTail =
      this.state !== undefined &&
      this.body.scrollTop > 0 &&
      this.body.scrollTop + this.body.clientHeight >= this.body.scrollHeight - 2;
    this.state = state;
    this.spacer.style.height = `${state.rows.length * ROW_HEIGHT}px`;
    this.renderAxis();
    if (followTail) this.body.scrollTop = this.body.scrollHeight; // a live run keeps its newest rows in view
    this.render();
  }

  /** Scrolls so the row at `index` is visible. */
  reveal(index: number): void {
    const top = index * ROW_HEIGHT;
    if (top < this.body.scrollTop) this.body.scrollTop = top;
    else if (top + ROW_HEIGHT > this.body.scrollTop + this.body.clientHeight)
      this.body.scrollTop = top + ROW_HEIGHT - this.body.clientHeight;
    this.render();
  }

  focus(): void {
    this.body.focus();
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  private renderAxis(): void {
    const span = this.span();
    const ticks = span > 0 ? [0, 1 / 3, 2 / 3, 1] : [0];
    replaceChildren(
      this.axis,
      ticks.map(fraction => {
        const tick = h(
          "span",
          { class: "tick" },
          fraction === 0 ? "0" : `+${formatDuration(span * fraction)}`,
        );
        tick.style.left = `${fraction * 100}%`;
        return tick;
      }),
    );
  }

  private span(): number {
    const model = this.state?.model;
    if (!model || !Number.isFinite(model.start) || !Number.isFinite(model.end)) return 0;
    return model.end - model.start;
  }

  private render(): void {
    const state = this.state;
    if (!state) return;
    const height = this.body.clientHeight || 600;
    const first = Math.max(0, Math.floor(this.body.scrollTop / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(
      state.rows.length,
      Math.ceil((this.body.scrollTop + height) / ROW_HEIGHT) + OVERSCAN,
    );
    const rows: HTMLElement[] = [];
    for (let index = first; index < last; index++) rows.push(this.renderRow(state, index));
    replaceChildren(this.body, this.spacer, rows);
  }

  private renderRow(state: TreeGridState, index: number): HTMLElement {
    const node = state.rows[index]!;
    const hasChildren = node.children.length > 0;
    const collapsible = hasChildren && !state.matched;
    const expanded = collapsible && !state.collapsed.has(node.id);
    const classes = ["row", `kind-${node.kind}`];
    if (node.kind === "tool" && node.toolKind === "agent_tool") classes.push("kind-delegate");
    if (node.error) classes.push("has-error");
    if (node.end === undefined) classes.push("open");
    if (node.id === state.selectedId) classes.push("selected");
    if (state.matched && !state.matched.has(node)) classes.push("context");
    const attrs: Record<string, string> = {
      "data-index": String(index),
      "data-id": node.id,
      "data-kind": node.kind,
      "data-source": agentOf(node),
      "aria-level": String(node.depth + 1),
      "aria-selected": String(node.id === state.selectedId),
    };
    if (collapsible) attrs["aria-expanded"] = String(expanded);
    if (node.kind === "member") attrs["data-status"] = node.status;

    const name = h(
      "div",
      { class: "cell name" },
      collapsible
        ? h("span", { class: "toggle", title: expanded ? "Collapse" : "Expand" }, expanded ? "▾" : "▸")
        : h("span", { class: "toggle-space" }),
      h("span", { class: "badge" }, badgeOf(node)),
      node.error ? h("span", { class: "error-code" }, errorTitle(node.error)) : null,
      h("span", { class: "label" }, labelOf(node)),
    );
    name.style.paddingLeft = `${4 + node.depth * 16}px`;

    const usage =
      node.kind === "turn" || node.kind === "member"
        ? node.usage
        : node.kind === "run"
          ? node.totalUsage // with what it delegated, and a team's or lead's members
          : undefined;
    const tokens = (value: number | undefined) =>
      h("div", { class: "cell num tokens" }, usage && value !== undefined ? formatCount(value) : "");
    const row = h(
      "div",
      { class: classes.join(" "), role: "treeitem", attrs },
      name,
      h("div", { class: "cell num duration" }, this.durationText(node)),
      tokens(usage?.input_tokens),
      tokens(usage?.output_tokens),
      tokens(usage?.cache_creation_input_tokens),
      tokens(usage?.cache_read_input_tokens),
      this.renderBar(node),
    );
    row.style.top = `${index * ROW_HEIGHT}px`;
    row.title = labelOf(node);
    return row;
  }

  private durationText(node: TreeNode): string {
    if (node.kind === "event") return "";
    const text = formatDuration(durationOf(node, this.state?.model.end ?? Number.NaN));
    return node.end === undefined ? `${text}…` : text;
  }

  private renderBar(node: TreeNode): HTMLElement {
    const cell = h("div", { class: "cell waterfall" });
    const model = this.state!.model;
    const span = this.span();
    if (!Number.isFinite(node.start) || !Number.isFinite(model.start)) return cell;
    const end = node.end ?? model.end;
    const left = span > 0 ? (node.start - model.start) / span : 0;
    const width = span > 0 && Number.isFinite(end) ? Math.max(0, end - node.start) / span : 0;
    const bar = h("span", { class: node.kind === "event" ? "mark" : "bar" });
    bar.style.left = `${Math.min(100, Math.max(0, left * 100))}%`;
    if (node.kind !== "event") bar.style.width = `${Math.min(100, width * 100)}%`;
    cell.appendChild(bar);
    return cell;
  }

  private onKey(event: KeyboardEvent): void {
    const state = this.state;
    if (!state?.rows.length) return;
    const index = state.rows.findIndex(node => node.id === state.selectedId);
    const current = state.rows[index];
    const move = (to: number) => {
      const next = state.rows[Math.max(0, Math.min(state.rows.length - 1, to))];
      if (next) this.callbacks.onSelect(next);
    };
    switch (event.key) {
      case "ArrowDown":
        move(index + 1);
        break;
      case "ArrowUp":
        move(index <= 0 ? 0 : index - 1);
        break;
      case "Home":
        move(0);
        break;
      case "End":
        move(state.rows.length - 1);
        break;
      case "ArrowRight":
        if (current?.children.length && state.collapsed.has(current.id)) this.callbacks.onToggle(current);
        else move(index + 1);
        break;
      case "ArrowLeft":
        if (current?.children.length && !state.matched && !state.collapsed.has(current.id))
          this.callbacks.onToggle(current);
        else if (current?.parent) this.callbacks.onSelect(current.parent);
        break;
      default:
        return;
    }
    event.preventDefault();
  }
}
