// Building the page's DOM without ever parsing data as markup.
//
// `html` and `svg` are tags for this page's own template literals: only the literal's fixed parts
// (written here, in static/js) are parsed, once per call site; every `${value}` becomes a text
// node, an attribute's value, or the nodes of another template; never markup. So a run record's
// strings (stdout, error messages, module and tensor names) reach the page only as text.
//   html`<div class="x" data-line="${n}">${message}</div>`  -> DocumentFragment
// Values: strings and numbers -> text; Nodes -> themselves; arrays -> each; null, undefined,
// false and "" -> nothing. An attribute whose whole value is null, undefined or false is left
// out. A value may not stand where markup syntax is (`<div ${x}>`): that throws.

const MARK = "dsm\u2063";            // an invisible separator no template of ours contains
const MARK_RE = new RegExp(`${MARK}(\\d+)${MARK}`, "g");
const ONLY_MARK_RE = new RegExp(`^${MARK}(\\d+)${MARK}$`);
// An attribute holding a value, and every style attribute, is parsed under a stand-in name and
// set after parsing (the parser would judge "x=<marker>" an invalid length, and the CSP refuses a
// parsed style attribute; styles are set through the CSSOM, which it allows).
const ATTR_RE = new RegExp(`([A-Za-z_:][-A-Za-z0-9_:.]*)=(?:"([^"]*)"|'([^']*)')`, "g");
const STAND_IN = "data-dsm-attr";
const cache = new WeakMap();         // the literal's fixed parts (one per call site) -> parsed form
const URL_ATTRS = new Set(["href", "src", "xlink:href", "action", "formaction"]);

function prepare(strings, svg) {
  const key = cache.get(strings);
  if (key && key.svg === svg) return key;
  let src = "";
  let state = "text";                // text | tag | quoted ' or "
  strings.forEach((part, i) => {
    for (const ch of part) {
      if (state === "text") { if (ch === "<") state = "tag"; }
      else if (state === "tag") { if (ch === ">") state = "text"; else if (ch === '"' || ch === "'") state = ch; }
      else if (ch === state) state = "tag";
    }
    src += part;
    if (i === strings.length - 1) return;
    if (state === "text") src += `<!--${MARK}${i}${MARK}-->`;
    else if (state === '"' || state === "'") src += `${MARK}${i}${MARK}`;
    else throw new Error(`dom.js: a value in markup syntax after ${JSON.stringify(part.slice(-40))}`);
  });
  const attrs = [];
  // only inside tags: text between tags is left as written
  src = src.replace(/<[^!][^>]*>/g, (tag) => tag.replace(ATTR_RE, (whole, name, dq, sq) => {
    const value = dq ?? sq;
    if (!value.includes(MARK) && name.toLowerCase() !== "style") return whole;
    attrs.push({ name, value });
    return `${STAND_IN}-${attrs.length - 1}=""`;
  }));
  const doc = new DOMParser().parseFromString(`<template>${svg ? `<svg>${src}</svg>` : src}</template>`, "text/html");
  const parsed = { svg, template: doc.querySelector("template"), attrs };
  cache.set(strings, parsed);
  return parsed;
}

/** The nodes a value stands for (text for anything that is not a Node or a list). */
export function nodesOf(value) {
  if (value === null || value === undefined || value === false || value === "") return [];
  if (Array.isArray(value)) return value.flatMap(nodesOf);
  if (value instanceof Node) return [value];
  return [document.createTextNode(String(value))];
}

function fill(root, values, attrs) {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_COMMENT);
  const comments = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (n.nodeType === Node.COMMENT_NODE) { if (n.data.startsWith(MARK)) comments.push(n); continue; }
    for (const attr of [...n.attributes]) {
      if (attr.name.toLowerCase().startsWith("on")) throw new Error(`dom.js: no event attributes (${attr.name})`);
      if (!attr.name.startsWith(STAND_IN)) continue;
      n.removeAttribute(attr.name);
      const { name, value: template } = attrs[Number(attr.name.slice(STAND_IN.length + 1))];
      const whole = ONLY_MARK_RE.exec(template);
      const v = whole ? values[Number(whole[1])] : null;
      if (whole && (v === null || v === undefined || v === false)) continue;
      const value = template.replace(MARK_RE, (_, i) => String(values[Number(i)] ?? ""));
      const lower = name.toLowerCase();
      if (URL_ATTRS.has(lower) && !/^(#|\/(?!\/))/.test(value.trim())) {
        throw new Error(`dom.js: ${name} may only be a same-page or same-site address`);
      }
      if (lower === "style") n.style.cssText = value;     // CSSOM: allowed by the CSP
      else n.setAttribute(name, value);
    }
  }
  for (const c of comments) c.replaceWith(...nodesOf(values[Number(c.data.slice(MARK.length, -MARK.length))]));
}

function build(strings, values, svg) {
  const { template, attrs } = prepare(strings, svg);
  const fragment = document.importNode(template.content, true);
  if (svg) {
    const wrapper = fragment.firstChild;
    fragment.append(...wrapper.childNodes);
    wrapper.remove();
  }
  fill(fragment, values, attrs);
  return fragment;
}

/** A DocumentFragment of HTML from a template literal of this page's own (see above). */
export const html = (strings, ...values) => build(strings, values, false);

/** The same for SVG content (the children of an <svg> element: <g>, <rect>, <text>, ...). */
export const svg = (strings, ...values) => build(strings, values, true);

/** Replace what `el` shows with `content` (a template's fragment, nodes, text, or a list). */
export function show(el, ...content) {
  el.replaceChildren(...nodesOf(content));
  return el;
}
