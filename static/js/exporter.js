// Export takes what the tab shows: every drawn pane (Step's two, Static's trace and script,
// Passes' before and after), each whole, titled, with the marks the page put on it (frozen branch,
// removed/added/changed, selection) written into the file, since the page's stylesheet is not in
// it. SVG as drawn; PNG at twice that size on white; DOT as Graphviz reads it, one graph per pane.
import { viewOf } from "./graphview.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const PAD = 12, GAP = 32, TITLE = 28;
export const PNG_SCALE = 2;
// what a mark changes on a drawn node (the page's CSS), copied onto each element of the copy
const STYLED = ["fill", "fill-opacity", "stroke", "stroke-width", "stroke-dasharray", "stroke-opacity", "opacity",
                "font-family", "font-size", "font-weight", "font-style"];

/** The drawn panes of a tab's panel, in the order they are on screen: {el, svg, title}; the list
 *  carries the panel's visible legend of marks (`legend`: [{fill, stroke, dashed, text}]). */
export function panes(panel) {
  const list = [...(panel?.querySelectorAll(".gv") || [])]
    .filter((el) => el.offsetParent !== null && el.querySelector(".gv-canvas svg"))
    .map((el) => ({ el, svg: el.querySelector(".gv-canvas svg"), title: titleOf(el) }));
  list.legend = [...(panel?.querySelectorAll(".legend .sw") || [])].filter((sw) => sw.offsetParent !== null).map((sw) => {
    const cs = getComputedStyle(sw);
    return { fill: cs.backgroundColor, stroke: cs.borderTopColor, dashed: cs.borderTopStyle === "dashed",
             text: sw.parentElement.textContent.trim() };
  });
  return list;
}

/** The legend's rows under the panes, from `y`; returns the height used. */
function drawLegend(out, legend, y) {
  legend.forEach((item, i) => {
    const top = y + i * 22;
    const sw = document.createElementNS(SVG_NS, "rect");
    for (const [k, v] of [["x", PAD], ["y", top], ["width", 22], ["height", 14], ["rx", 3], ["fill", item.fill],
                          ["stroke", item.stroke], ["stroke-width", 2]]) sw.setAttribute(k, v);
    if (item.dashed) sw.setAttribute("stroke-dasharray", "4 2");
    const text = document.createElementNS(SVG_NS, "text");
    for (const [k, v] of [["x", PAD + 30], ["y", top + 12], ["font-family", "Helvetica,Arial,sans-serif"], ["font-size", "13"],
                          ["fill", "#111827"]]) text.setAttribute(k, v);
    text.textContent = item.text;
    out.append(sw, text);
  });
  return legend.length ? legend.length * 22 + 8 : 0;
}

function titleOf(el) {
  const own = el.querySelector(".gv-title");
  if (own && !own.hidden && own.textContent) return own.textContent;
  const before = el.previousElementSibling;
  return before?.matches("h3, h4") ? before.textContent : "";
}

/** A copy of a live drawing, whole (not the pane's zoom), its computed look written inline. */
function standalone(svg) {
  const copy = svg.cloneNode(true);
  const live = [svg, ...svg.querySelectorAll("*")];
  const copied = [copy, ...copy.querySelectorAll("*")];
  live.forEach((el, i) => {
    const cs = getComputedStyle(el);
    // presentation attributes, not style="": the page's policy refuses inline styles (and the
    // file has no stylesheet, so nothing outranks them)
    for (const p of STYLED) copied[i].setAttribute(p, cs.getPropertyValue(p));
    copied[i].removeAttribute("class");
  });
  const [x, y, w, h] = (svg.dataset.full || "0 0 100 100").split(" ").map(Number);
  copy.setAttribute("viewBox", `${x - PAD} ${y - PAD} ${w + 2 * PAD} ${h + 2 * PAD}`);
  copy.removeAttribute("data-full");
  return { copy, w: w + 2 * PAD, h: h + 2 * PAD };
}

/** One SVG document holding every pane side by side, each under its title, on white. */
export function composite(list) {
  const out = document.createElementNS(SVG_NS, "svg");
  out.setAttribute("xmlns", SVG_NS);
  const back = document.createElementNS(SVG_NS, "rect");
  back.setAttribute("fill", "#ffffff");
  out.append(back);
  const titled = list.some((p) => p.title);
  let x = 0, height = 0;
  for (const pane of list) {
    const { copy, w, h } = standalone(pane.svg);
    if (pane.title) {
      const text = document.createElementNS(SVG_NS, "text");
      text.setAttribute("x", x + PAD);
      text.setAttribute("y", 20);
      for (const [k, v] of [["font-family", "Helvetica,Arial,sans-serif"], ["font-size", "16"], ["font-weight", "bold"], ["fill", "#111827"]]) {
        text.setAttribute(k, v);
      }
      text.textContent = pane.title;
      out.append(text);
    }
    copy.setAttribute("x", x);
    copy.setAttribute("y", titled ? TITLE : 0);
    copy.setAttribute("width", w);
    copy.setAttribute("height", h);
    out.append(copy);
    x += w + GAP;
    height = Math.max(height, h + (titled ? TITLE : 0));
  }
  height += drawLegend(out, list.legend || [], height + 8);
  const width = Math.max(1, x - GAP, list.legend?.length ? 420 : 0);
  for (const [k, v] of [["width", width], ["height", height]]) {
    out.setAttribute(k, v);
    back.setAttribute(k, v);
  }
  out.setAttribute("viewBox", `0 0 ${width} ${height}`);
  return out;
}

export function svgText(list) {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(composite(list))}`;
}

/** The panes as a PNG at PNG_SCALE× their drawn size, on white. */
export async function pngBlob(list) {
  const svg = composite(list);
  const w = Number(svg.getAttribute("width")), h = Number(svg.getAttribute("height"));
  const url = URL.createObjectURL(new Blob([new XMLSerializer().serializeToString(svg)], { type: "image/svg+xml" }));
  try {
    const img = new Image();
    img.src = url;
    await img.decode();
    const canvas = document.createElement("canvas");
    canvas.width = Math.round(w * PNG_SCALE);
    canvas.height = Math.round(h * PNG_SCALE);
    const ctx = canvas.getContext("2d");
    ctx.fillStyle = "#ffffff";
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
    return await new Promise((done, fail) => canvas.toBlob((b) => (b ? done(b) : fail(new Error("no PNG"))), "image/png"));
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** The GraphView of each pane (for DOT, which Graphviz writes from the graph shown). */
export function viewsOf(list) {
  return list.map((p) => ({ view: viewOf(p.el), title: p.title })).filter((v) => v.view?.shown);
}
