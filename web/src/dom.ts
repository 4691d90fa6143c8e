// Tiny helpers to build DOM and SVG trees without a framework.

type Attrs = Record<string, string | number | boolean | undefined>;
type Child = Node | string | null | undefined | false;

function applyAttrs(el: HTMLElement | SVGElement, attrs: Attrs): void {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    // Through the CSSOM: the page's Content-Security-Policy refuses style
    // attributes written as markup.
    if (name === "style") el.style.cssText = String(value);
    else el.setAttribute(name, value === true ? "" : String(value));
  }
}

function append(el: Element, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child);
  }
}

/** An HTML element with attributes and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  applyAttrs(el, attrs);
  append(el, children);
  return el;
}

const SVG_NS = "http://www.w3.org/2000/svg";

/** An SVG element with attributes and children. */
export function s<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  applyAttrs(el, attrs);
  append(el, children);
  return el;
}

/** A button that runs `action` when clicked. */
export function button(label: string, action: () => void, attrs: Attrs = {}): HTMLButtonElement {
  const b = h("button", { type: "button", ...attrs }, label);
  b.addEventListener("click", action);
  return b;
}

/** Radio buttons `name`, one a [value, label], `checked` checked. */
export function radios(name: string, options: [string, string][], checked: string): HTMLElement[] {
  return options.map(([value, label]) =>
    h("label", { class: "choice" }, h("input", { type: "radio", name, value, checked: value === checked }), " ", label),
  );
}
