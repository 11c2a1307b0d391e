/**
 * The page's only way to make DOM: elements with a fixed set of safe attributes, and strings as text nodes.
 * Trace content never meets an HTML parser (no innerHTML, insertAdjacentHTML or document.write anywhere in the
 * page; the CSP's Trusted Types policy makes such a sink throw even if one crept in), and never lands in an
 * attribute that can run or load anything (event handlers, src, href, style are refused here).
 */

export type Child = Node | string | number | null | undefined | false | readonly Child[];

export interface Props {
  class?: string;
  title?: string;
  role?: string;
  type?: string;
  placeholder?: string;
  value?: string;
  id?: string;
  tabindex?: string;
  open?: boolean;
  disabled?: boolean;
  /** Other attributes: data-* and aria-* only. */
  attrs?: Record<string, string>;
}

const SAFE_EXTRA_ATTRIBUTE = /^(data|aria)-[a-z0-9-]+$/;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props?: Props | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (props) {
    if (props.class) element.className = props.class;
    if (props.title !== undefined) element.title = props.title;
    for (const name of ["role", "type", "placeholder", "id", "tabindex"] as const) {
      const value = props[name];
      if (value !== undefined) element.setAttribute(name, value);
    }
    if (props.value !== undefined) (element as HTMLInputElement).value = props.value;
    if (props.open) element.setAttribute("open", "");
    if (props.disabled) element.setAttribute("disabled", "");
    for (const [name, value] of Object.entries(props.attrs ?? {})) setSafeAttribute(element, name, value);
  }
  append(element, children);
  return element;
}

export function setSafeAttribute(element: Element, name: string, value: string): void {
  if (!SAFE_EXTRA_ATTRIBUTE.test(name)) throw new Error(`trace viewer: refusing attribute ${name}`);
  element.setAttribute(name, value);
}

export function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else if (typeof child === "string" || typeof child === "number")
      parent.appendChild(document.createTextNode(String(child)));
    else parent.appendChild(child as Node);
  }
}

/** Replaces an element's children. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.textContent = "";
  append(parent, children);
}
