// One drawn graph: Graphviz SVG from /api/render, zoom/pan/fit, search, classes for linked
// highlighting, clusters collapsed when large and expanded by clicking them.
import { render } from "./api.js";
import { displayGraph, foldable, initialExpansion, shouldCollapse } from "./collapse.js";
import { html, show } from "./dom.js";
import { t, tMessageParts, tParts } from "./i18n.js";
import { layoutFor } from "./layout.js";
import { measure, now } from "./timing.js";

// A drawing from /api/render is parsed as SVG, never as HTML, and keeps only what a drawing
// needs: the server sanitises it too (a Graphviz label can be markup), this is the second layer.
const UNSAFE_ELEMENTS = "script, image, foreignObject, iframe, object, embed, use, animate, set, animateMotion, animateTransform, style, audio, video, handler, listener";
const URL_ATTRIBUTES = new Set(["href", "xlink:href", "src", "action", "formaction", "from", "to", "values"]);

/** The <svg> element of `svgText`, safe to put into the page, or null when it is not SVG. */
export function parseSvg(svgText) {
  const doc = new DOMParser().parseFromString(svgText, "image/svg+xml");
  const root = doc.documentElement;
  if (!root || root.namespaceURI !== "http://www.w3.org/2000/svg" || root.localName !== "svg"
      || doc.getElementsByTagName("parsererror").length) return null;
  root.querySelectorAll(UNSAFE_ELEMENTS).forEach((el) => el.remove());
  root.querySelectorAll("a").forEach((a) => a.replaceWith(...a.childNodes));   // a node's tooltip wraps it in <a>
  for (const el of [root, ...root.querySelectorAll("*")]) {
    for (const attr of [...el.attributes]) {
      const name = attr.name.toLowerCase();
      // (a url( needs its parenthesis: most values, numbers and ids, have none)
      if (name.startsWith("on") || URL_ATTRIBUTES.has(name) || name.endsWith(":href") || name === "style"
          || (attr.value.includes("(") && /url\s*\(\s*['"]?\s*(?!#)/i.test(attr.value))) {
        el.removeAttribute(attr.name);
      }
    }
  }
  // moved into the page, not copied: the parsed document is thrown away
  return document.adoptNode(root);
}

// What Graphviz needs of a graph: values and gradients stay in the page, not in the request.
const DRAWN_FIELDS = ["id", "op", "label", "kind", "shape", "module"];
export function drawable(graph) {
  const nodes = graph.nodes.map((n) => {
    const out = {};
    for (const k of DRAWN_FIELDS) if (n[k] !== undefined && n[k] !== null) out[k] = n[k];
    return out;
  });
  return { nodes, edges: graph.edges.map((e) => ({ src: e.src, dst: e.dst, shape: e.shape ?? null })) };
}

const SVG_NS = "http://www.w3.org/2000/svg";
const ROW_GAP = 40;

/** A node's box in its drawing's coordinates, read from its outline (no layout needed: a view
 *  drawn in a hidden tab has none). */
function outlineBox(g) {
  const shape = g.querySelector("path, polygon, ellipse");
  const nums = (shape?.getAttribute("d") || shape?.getAttribute("points") || "").match(/-?\d+(\.\d+)?/g)?.map(Number) || [];
  const xs = nums.filter((_, i) => i % 2 === 0), ys = nums.filter((_, i) => i % 2 === 1);
  return xs.length ? { x0: Math.min(...xs), x1: Math.max(...xs), y0: Math.min(...ys), y1: Math.max(...ys) } : null;
}

/** One <svg> of wrapped rows (each Graphviz's drawing of its part), stacked top to bottom, with
 *  the edges between rows drawn from the bottom of their source to the top of their target. */
function stackRows(parts, links) {
  if (parts.some((p) => !p)) return null;
  const svg = document.createElementNS(SVG_NS, "svg");
  const root = document.createElementNS(SVG_NS, "g");
  root.setAttribute("class", "graph");
  root.setAttribute("transform", "translate(0 0)");
  svg.append(root);
  const where = new Map();   // node id -> its box in the stacked drawing
  let y = 0, width = 0;
  for (const part of parts) {
    const vb = part.viewBox.baseVal;
    const inner = part.querySelector("g.graph");
    const tr = /translate\(([-\d.]+)[ ,]+([-\d.]+)\)/.exec(inner?.getAttribute("transform") || "");
    const dx = tr ? Number(tr[1]) : 0, dy = y + (tr ? Number(tr[2]) : 0);
    const row = document.createElementNS(SVG_NS, "g");
    row.setAttribute("transform", `translate(${dx} ${dy})`);
    row.dataset.dx = dx;
    row.dataset.dy = dy;
    row.append(...(inner ? inner.childNodes : []));
    root.append(row);
    for (const g of row.querySelectorAll("g.node")) {
      const b = outlineBox(g);
      if (b) where.set(g.id, { x0: b.x0 + dx, x1: b.x1 + dx, y0: b.y0 + dy, y1: b.y1 + dy });
    }
    y += vb.height + ROW_GAP;
    width = Math.max(width, vb.width);
  }
  svg.setAttribute("viewBox", `0 0 ${width} ${Math.max(1, y - ROW_GAP)}`);
  const drawn = document.createElementNS(SVG_NS, "g");
  drawn.setAttribute("class", "row-links");
  for (const e of links) {
    const a = where.get(e.src), b = where.get(e.dst);
    if (!a || !b) continue;
    const sx = (a.x0 + a.x1) / 2, sy = a.y1, tx = (b.x0 + b.x1) / 2, ty = b.y0;
    const bend = Math.max(ROW_GAP, (ty - sy) / 2);
    const path = document.createElementNS(SVG_NS, "path");
    path.setAttribute("d", `M${sx},${sy} C${sx},${sy + bend} ${tx},${ty - bend} ${tx},${ty - 6}`);
    path.setAttribute("fill", "none");
    path.setAttribute("stroke", "#6b7280");
    const head = document.createElementNS(SVG_NS, "polygon");
    head.setAttribute("points", `${tx - 3.5},${ty - 6} ${tx + 3.5},${ty - 6} ${tx},${ty}`);
    head.setAttribute("fill", "#6b7280");
    head.setAttribute("stroke", "#6b7280");
    drawn.append(path, head);
  }
  root.append(drawn);
  return svg;
}

const VIEWS = new WeakMap();   // a pane's element -> its GraphView (Export reads the graph shown)
export const viewOf = (el) => VIEWS.get(el) || null;

const MAX_SCALE = 1.5;   // a 4-node graph should look like a diagram, not a poster
// Presenting, a node's label is never drawn smaller than this on screen (CSS px, the text's box):
// a graph larger than its pane opens at that size from its top and is panned (⤢ fits it whole)
export const PRESENT_LABEL_PX = 18;
const HIGHLIGHTS = ["sel", "linked", "saved", "current", "done", "hit", "hover", "added", "removed", "changed", "frozen", "ident", "ident-group"];

export class GraphView {
  /** el: the container; onSelect(nodeId|null, view) on a click; onHover(nodeId|null, view) when
   * the pointer enters or leaves a node; compact: no search box (small panes). */
  constructor(el, { onSelect = () => {}, onHover = null, compact = false } = {}) {
    this.el = el;
    VIEWS.set(el, this);
    this.onSelect = onSelect;
    this.onHover = onHover;
    this.graph = null;
    this.expanded = null;
    this.token = 0;
    this.classes = new Map();   // class -> Set of node ids (original ids), re-applied after redraws
    el.classList.add("gv");
    show(el, html`
      <div class="gv-toolbar">
        <span class="gv-title" hidden></span>
        <input class="gv-search" type="search">
        <button class="gv-fit">⤢</button>
        <button class="gv-zoom-in">+</button>
        <button class="gv-zoom-out">−</button>
        <button class="gv-collapse" hidden></button>
        <span class="gv-count muted"></span>
      </div>
      <div class="gv-banner" hidden></div>
      <div class="gv-notice" hidden></div>
      <div class="gv-canvas" tabindex="0"></div>
      <div class="gv-message" hidden></div>`);
    this.compact = compact;
    if (compact) {
      el.querySelector(".gv-search").hidden = true;
      el.classList.add("compact");
    }
    this.canvas = el.querySelector(".gv-canvas");
    this.notice = el.querySelector(".gv-notice");
    this.message = el.querySelector(".gv-message");
    this.labelToolbar();
    this.bindToolbar();
    this.bindPanZoom();
    // a view drawn while its tab was hidden has no size: fit it when it becomes visible (or resizes).
    // The size is kept: reading it from the canvas after inserting a drawing would make the browser
    // lay the drawing out there and then (getBoundingClientRect), once per view, instead of once
    // in the next frame; the canvas's size does not depend on what it holds (dagscope.css)
    this.paneSize = null;
    new ResizeObserver(([entry]) => {
      const box = entry.borderBoxSize?.[0];
      this.paneSize = box ? { width: box.inlineSize, height: box.blockSize } : null;
      if (this.svg && !this.userMoved) this.refit();
    }).observe(this.canvas);
  }

  /** The toolbar's words in the page's language: set when built and again on each drawing, so a
   * view built before the language changed speaks the new one. */
  labelToolbar() {
    const q = (s) => this.el.querySelector(s);
    q(".gv-search").placeholder = t("graph.search");
    q(".gv-search").setAttribute("aria-label", t("graph.search"));
    q(".gv-fit").title = t("graph.fit");
    q(".gv-zoom-in").title = t("graph.zoom_in");
    q(".gv-zoom-out").title = t("graph.zoom_out");
  }

  bindToolbar() {
    const q = (s) => this.el.querySelector(s);
    q(".gv-fit").onclick = () => { this.followed = null; this.fit({ whole: true }); };
    q(".gv-zoom-in").onclick = () => this.zoomBy(0.8);
    q(".gv-zoom-out").onclick = () => this.zoomBy(1.25);
    q(".gv-search").addEventListener("input", (e) => this.search(e.target.value));
    q(".gv-search").addEventListener("keydown", (e) => {
      if (e.key === "Enter") { const hit = [...(this.classes.get("hit") || [])][0]; if (hit) this.onSelect(hit, this); }
    });
    q(".gv-collapse").onclick = () => {
      this.expanded = this.expanded === null ? new Set() : null;
      this.draw();
    };
  }

  /** A title in the toolbar's flow ("Backward" over a Step pane), so buttons never run under it. */
  setTitle(text) {
    const el = this.el.querySelector(".gv-title");
    el.textContent = text || "";
    el.hidden = !text;
  }

  /** A standing note above the drawing (what kind of graph this is), kept across redraws; null hides it. */
  setBanner(content) {
    const el = this.el.querySelector(".gv-banner");
    show(el, content || "");
    el.hidden = !content;
  }

  /** Show a friendly explanation (DOM nodes) instead of a drawing (no graph of this kind in the run). */
  showMessage(content) {
    this.token++;
    this.graph = null;
    this.svg = null;
    show(this.canvas);
    this.notice.hidden = true;
    show(this.message, content);
    this.message.hidden = false;
    this.el.querySelector(".gv-toolbar").hidden = true;
  }

  /** Draw a run-record Graph; large graphs open collapsed by module. Resolves when drawn. */
  async show(graph) {
    this.expanded = shouldCollapse(graph) ? initialExpansion(graph) : null;
    this.graph = graph;
    this.force = false;
    return this.draw();
  }

  async draw() {
    const my = ++this.token;
    let t0 = now();
    const shown = displayGraph(this.graph, this.expanded);
    this.shown = shown;
    measure("fold", t0, this.el.id);
    this.message.hidden = true;
    this.el.querySelector(".gv-toolbar").hidden = false;
    this.labelToolbar();
    const collapseBtn = this.el.querySelector(".gv-collapse");
    // a small pane (Step's, Passes') keeps its toolbar to one line: folding is offered there for
    // large graphs only; Forward and Backward offer it for every graph with modules
    collapseBtn.hidden = !(this.compact ? shouldCollapse(this.graph) : foldable(this.graph));
    collapseBtn.textContent = this.expanded === null ? t("graph.collapse_all") : t("graph.expand_all");
    const total = this.graph.nodes.length;
    this.el.querySelector(".gv-count").textContent = shown.graph.nodes.length === total
      ? t("graph.count", { n: total }) : t("graph.count_folded", { n: shown.graph.nodes.length, total });
    if (shown.tooLarge && !this.force) {
      this.setNotice(t("graph.too_large", { n: shown.graph.nodes.length }), t("graph.draw_anyway"), () => { this.force = true; this.draw(); });
      show(this.canvas);
      return null;
    }
    // "large graph: folded" only where the page folded it; a fold asked for needs no notice
    this.setNotice(this.expanded !== null && shouldCollapse(this.graph) ? t("graph.collapsed_notice") : "");
    let svgText;
    try {
      // laid out for this pane: a long chain turns left to right, wrapped into rows (layout.js);
      // a small pane beside another (Step follows its current node through both) stays top to bottom
      t0 = now();
      this.layout = this.compact ? { direction: "TB", graph: shown.graph } : layoutFor(shown.graph, this.pane({ fresh: true }));
      measure("layout", t0, this.el.id);
      t0 = now();
      svgText = this.layout.rows
        ? await Promise.all(this.layout.rows.map((part) => render(drawable(part), "svg", this.layout.direction)))
        : await render(drawable(this.layout.graph), "svg", this.layout.direction);
      measure("render", t0, this.el.id);
    } catch (err) {
      if (my !== this.token) return null;
      show(this.canvas);
      // the server's wording, with Graphviz's own words as code (i18n.js tMessageParts)
      const reason = err?.wording ? tMessageParts(err.wording, err.message) : [String(err?.message ?? err)];
      this.setNotice(tParts("graph.render_failed", { reason }).flat());
      return null;
    }
    if (my !== this.token) return null;   // a newer drawing was asked for meanwhile
    t0 = now();
    this.insertSvg(svgText);
    measure("insert", t0, this.el.id);
    return this.svg;
  }

  /** `text`: a string, or a list of strings and elements (a message with code in it). */
  setNotice(text, actionLabel, action) {
    this.notice.hidden = !(Array.isArray(text) ? text.length : text);
    this.notice.replaceChildren(...(Array.isArray(text) ? text : [text]));
    if (actionLabel) {
      const b = document.createElement("button");
      b.textContent = actionLabel;
      b.onclick = action;
      this.notice.append(" ", b);
    }
  }

  insertSvg(svgText) {
    const svg = Array.isArray(svgText) ? stackRows(svgText.map(parseSvg), this.layout.links) : parseSvg(svgText);
    if (!svg) {
      show(this.canvas);
      this.setNotice(t("graph.render_failed", { reason: t("graph.not_svg") }));
      return;
    }
    show(this.canvas, svg);
    this.svg = svg;
    svg.removeAttribute("width");
    svg.removeAttribute("height");
    svg.querySelectorAll("title").forEach((el) => el.remove());   // native tooltips hide the inspector
    this.nodeEls = new Map();
    svg.querySelectorAll("g.node").forEach((g) => {
      this.nodeEls.set(g.id, g);
      if (g.id.startsWith("fold_")) g.classList.add("folded");
    });
    const kinds = new Map(this.shown.graph.nodes.map((n) => [n.id, n.kind]));
    for (const [id, g] of this.nodeEls) g.classList.add(`k-${kinds.get(id) || "op"}`);
    // Graphviz wraps everything in <g id="graph0" transform="... translate(tx ty)">: node boxes
    // are in that group's coordinates, the viewBox in the SVG's
    const tr = /translate\(([-\d.]+)[ ,]+([-\d.]+)\)/.exec(svg.querySelector("g.graph")?.getAttribute("transform") || "");
    this.offset = tr ? { x: Number(tr[1]), y: Number(tr[2]) } : { x: 0, y: 0 };
    const vb = svg.viewBox.baseVal;
    this.full = { x: vb.x, y: vb.y, w: vb.width, h: vb.height };
    svg.dataset.full = `${vb.x} ${vb.y} ${vb.width} ${vb.height}`;   // the whole drawing, for Export
    this.refit();
    for (const [cls, ids] of this.classes) this.paint(cls, ids);
    this.overlayEls = null;
    this.paintOverlay();
  }

  /**
   * Values drawn with the nodes (a training iteration, training.js): id -> {text, cells: [colour]}
   * puts a strip of coloured cells along the bottom of each node's box and the text under it; null
   * removes them. Only values change from one call to the next: the elements are made once per
   * drawing (in the node's own coordinates, beside it, so label measurements and the layout are
   * untouched) and then only their text and fills are set.
   */
  setOverlay(items) {
    this.overlay = items;
    this.paintOverlay();
  }

  paintOverlay() {
    if (!this.svg) return;
    if (!this.overlay) {
      this.svg.querySelectorAll("g.node-overlay").forEach((el) => el.remove());
      this.overlayEls = null;
      return;
    }
    this.overlayEls ||= new Map();
    for (const [id, item] of this.overlay) {
      let o = this.overlayEls.get(id);
      if (!o || o.rects.length !== item.cells.length) {
        o?.g.remove();
        o = this.makeOverlay(id, item.cells.length);
        if (!o) continue;
        this.overlayEls.set(id, o);
      }
      if (o.text.textContent !== item.text) o.text.textContent = item.text;
      item.cells.forEach((c, i) => { if (o.fills[i] !== c) { o.rects[i].setAttribute("fill", c); o.fills[i] = c; } });
    }
    for (const [id, o] of this.overlayEls) if (!this.overlay.has(id)) { o.g.remove(); this.overlayEls.delete(id); }
  }

  /** The overlay's elements for one node (none for a node folded into a cluster). */
  makeOverlay(id, cells) {
    const node = this.nodeEls?.get(id);
    const box = node && outlineBox(node);
    if (!box) return null;
    const g = document.createElementNS(SVG_NS, "g");
    g.setAttribute("class", "node-overlay");
    g.dataset.node = id;
    const w = (box.x1 - box.x0) * 0.8, x = box.x0 + (box.x1 - box.x0) * 0.1, h = 5, y = box.y1 - h - 3;
    const rects = [];
    for (let i = 0; i < cells; i++) {
      const r = document.createElementNS(SVG_NS, "rect");
      r.setAttribute("x", x + (i * w) / cells);
      r.setAttribute("y", y);
      r.setAttribute("width", w / cells);
      r.setAttribute("height", h);
      r.setAttribute("fill", "#fff");
      rects.push(r);
    }
    const text = document.createElementNS(SVG_NS, "text");
    text.setAttribute("x", (box.x0 + box.x1) / 2);
    text.setAttribute("y", box.y1 + 11);
    text.setAttribute("text-anchor", "middle");
    text.setAttribute("class", "overlay-value");
    g.append(...rects, text);
    node.parentNode.append(g);
    return { g, rects, text, fills: rects.map(() => "#fff") };
  }

  /** Mark nodes (original ids; folded ones light their cluster) with a highlight class. */
  setClass(cls, ids) {
    const set = new Set((ids || []).filter(Boolean));
    this.classes.set(cls, set);
    this.paint(cls, set);
  }

  paint(cls, ids) {
    if (!this.svg) return;
    this.svg.querySelectorAll(`g.node.${cls}`).forEach((g) => g.classList.remove(cls));
    for (const id of ids) {
      const g = this.nodeEls.get(this.shown.displayOf.get(id) ?? id);
      if (g) g.classList.add(cls);
    }
  }

  clearHighlights() { for (const c of HIGHLIGHTS) this.setClass(c, []); }

  /** Drawn element of a node (or of the folded cluster holding it). */
  nodeEl(id) { return this.nodeEls?.get(this.shown.displayOf.get(id) ?? id) || null; }

  search(text) {
    const q = text.trim().toLowerCase();
    if (!q || !this.graph) { this.setClass("hit", []); return []; }
    const hits = this.graph.nodes.filter((n) =>
      [n.id, n.label, n.op, n.name, n.module].some((v) => v && String(v).toLowerCase().includes(q))).map((n) => n.id);
    this.setClass("hit", hits);
    if (hits.length) this.centerOn(hits[0]);
    return hits;
  }

  // ---- zoom and pan (on the SVG viewBox, so text stays crisp) --------------------------------

  setViewBox(v) {
    this.vb = v;
    this.svg?.setAttribute("viewBox", `${v.x} ${v.y} ${v.w} ${v.h}`);
  }

  /**
   * Fit the whole drawing, but never blow a small graph up past MAX_SCALE screen pixels per unit.
   * Presenting, the automatic fit keeps node labels at PRESENT_LABEL_PX at least: a graph that
   * would need smaller text shows its top at that size (the stepper brings its current node into
   * view); `whole` (the ⤢ button) fits it all whatever the size.
   */
  /** fit(), then the node a stepper follows (centerOn) back into view: a pane resized (Step's detail
   * beside it grew) or a drawing that arrived after the step was shown fitted the whole graph,
   * leaving the current node cut at the pane's edge. */
  refit() {
    this.fit();
    if (this.followed) this.centerOn(this.followed);
  }

  fit({ whole = false } = {}) {
    if (!this.full) return;
    this.userMoved = false;
    const pad = 12;
    const f = this.full;
    const w = f.w + 2 * pad, h = f.h + 2 * pad;
    const r = this.pane();
    if (!(r.width > 0 && r.height > 0)) { this.setViewBox({ x: f.x - pad, y: f.y - pad, w, h }); return; }
    const fits = Math.min(r.width / w, r.height / h);
    const presenting = document.body.classList.contains("present");
    // projected graphs may be larger: the room is far away
    let scale = Math.min(fits, presenting ? MAX_SCALE * 1.6 : MAX_SCALE);
    const place = (s) => {
      const vw = r.width / s, vh = r.height / s;
      // taller than the pane: from the top, where a drawing's inputs are (centred across)
      this.setViewBox({ x: f.x + f.w / 2 - vw / 2, y: vh >= h ? f.y + f.h / 2 - vh / 2 : f.y - pad, w: vw, h: vh });
    };
    place(scale);
    if (!presenting || whole) return;
    // text is hinted at the size it is drawn, so its height is measured where it is drawn: a first
    // guess from the font size, then corrected (up to the size asked, or down to it when the
    // guess overshot), three times at most
    const target = PRESENT_LABEL_PX * 1.01;
    const px = this.smallestLabelPx();
    if (!px || px >= PRESENT_LABEL_PX) return;
    const fontSize = Math.min(...[...this.svg.querySelectorAll("g.node text")].slice(0, 200)
      .map((el) => Number.parseFloat(el.getAttribute("font-size")) || 14));
    const least = target / (fontSize * 1.1);
    scale = Math.max(scale, least);
    place(scale);
    for (let i = 0; i < 3; i++) {
      const now = this.smallestLabelPx();
      if (!now || (now >= PRESENT_LABEL_PX && now <= target * 1.05)) return;
      scale = Math.max(fits, scale * (target / now));
      place(scale);
    }
  }

  /** The canvas's size in CSS px ({width, height}; 0 when hidden) as the ResizeObserver last saw
   *  it, or read from the page before it has. `fresh`: a size of 0 is read again (a tab shown in
   *  this task has not been observed yet); fitting need not, the observer fits it once shown. */
  pane({ fresh = false } = {}) {
    const known = this.paneSize;
    return known && (!fresh || (known.width > 0 && known.height > 0)) ? known : this.canvas.getBoundingClientRect();
  }

  /** The on-screen height (CSS px) of the smallest node label drawn, or 0 when none is laid out. */
  smallestLabelPx() {
    const heights = [...this.svg.querySelectorAll("g.node text")].slice(0, 200)
      .map((el) => el.getBoundingClientRect().height).filter((x) => x > 0);
    return heights.length ? Math.min(...heights) : 0;
  }

  zoomBy(f, cx = 0.5, cy = 0.5) {
    if (!this.vb) return;
    this.userMoved = true;
    this.followed = null;
    const v = this.vb;
    const w = Math.max(20, Math.min(v.w * f, this.full.w * 8));
    const h = v.h * (w / v.w);
    this.setViewBox({ x: v.x + (v.w - w) * cx, y: v.y + (v.h - h) * cy, w, h });
  }

  /** Bring a node into view (only when it is not wholly in the visible region). */
  centerOn(id) {
    this.followed = id;
    const g = this.nodeEl(id);
    if (!g || !this.vb) return;
    const b = g.getBBox();
    const row = g.closest("g[data-dx]");    // a wrapped row is placed by its own translation
    const off = row ? { x: Number(row.dataset.dx), y: Number(row.dataset.dy) } : this.offset;
    const x = b.x + off.x, y = b.y + off.y;
    const cx = x + b.width / 2, cy = y + b.height / 2;
    // the region the pane shows (the SVG keeps its aspect ratio, so it can be wider than the viewBox)
    const r = this.canvas.getBoundingClientRect();
    const v = this.vb;
    const s = r.width > 0 && r.height > 0 ? Math.max(v.w / r.width, v.h / r.height) : 1;
    const sw = r.width > 0 ? r.width * s : v.w, sh = r.height > 0 ? r.height * s : v.h;
    const sx = v.x + v.w / 2 - sw / 2, sy = v.y + v.h / 2 - sh / 2;
    if (x >= sx && y >= sy && x + b.width <= sx + sw && y + b.height <= sy + sh) return;
    this.setViewBox({ ...v, x: cx - v.w / 2, y: cy - v.h / 2 });
  }

  bindPanZoom() {
    const c = this.canvas;
    c.addEventListener("wheel", (e) => {
      if (!this.svg) return;
      e.preventDefault();
      const r = c.getBoundingClientRect();
      this.zoomBy(e.deltaY > 0 ? 1.15 : 1 / 1.15, (e.clientX - r.left) / r.width, (e.clientY - r.top) / r.height);
    }, { passive: false });
    let drag = null;
    c.addEventListener("pointerdown", (e) => {
      if (!this.svg || e.button !== 0) return;
      drag = { x: e.clientX, y: e.clientY, vb: { ...this.vb }, moved: false };
    });
    c.addEventListener("pointermove", (e) => {
      if (!drag) return;
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      if (!drag.moved && Math.hypot(dx, dy) < 4) return;
      if (!drag.moved) c.setPointerCapture(e.pointerId);
      drag.moved = true;
      this.userMoved = true;
      this.followed = null;
      c.classList.add("panning");
      const r = c.getBoundingClientRect();
      // the SVG keeps its aspect ratio: one screen pixel is max(w/width, h/height) units
      const s = Math.max(drag.vb.w / r.width, drag.vb.h / r.height);
      this.setViewBox({ ...drag.vb, x: drag.vb.x - dx * s, y: drag.vb.y - dy * s });
    });
    const end = (e) => {
      if (!drag) return;
      const wasClick = !drag.moved;
      drag = null;
      c.classList.remove("panning");
      if (wasClick) this.clickAt(e.target);
    };
    c.addEventListener("pointerup", end);
    c.addEventListener("pointercancel", () => { drag = null; c.classList.remove("panning"); });
    // one delegated listener: entering a node (not a folded cluster) or leaving it for the background
    let hovered = null;
    const hoverTo = (id) => { if (id !== hovered) { hovered = id; this.onHover?.(id, this); } };
    c.addEventListener("pointerover", (e) => {
      if (drag?.moved) return;
      const g = e.target.closest?.("g.node");
      hoverTo(g && !g.id.startsWith("fold_") ? g.id : null);
    });
    c.addEventListener("pointerleave", () => hoverTo(null));
  }

  clickAt(target) {
    const g = target.closest?.("g.node");
    const cluster = !g && target.closest?.("g.cluster");
    if (cluster && cluster.id?.startsWith("cluster:")) { this.collapse(cluster.id.slice("cluster:".length)); return; }
    if (!g) { this.onSelect(null, this); return; }
    if (g.id.startsWith("fold_")) { this.expand(this.shown.folds.get(g.id)); return; }
    this.onSelect(g.id, this);
  }

  /** Fold a drawn module back into one box (clicking its dashed frame). */
  collapse(module) {
    const all = new Set();
    for (const n of this.graph.nodes) {
      const parts = (n.module || "").split(".").filter(Boolean);
      for (let i = 1; i <= parts.length; i++) all.add(parts.slice(0, i).join("."));
    }
    const open = this.expanded === null ? all : new Set(this.expanded);
    for (const m of [...open]) if (m === module || m.startsWith(`${module}.`)) open.delete(m);
    this.expanded = open;
    return this.draw();
  }

  /** Open a folded cluster (a repeated-block fold opens into its blocks first). */
  expand(info) {
    if (!info) return;
    this.expanded = new Set(this.expanded || []);
    this.expanded.add(info.module);   // "layers.*0" unfolds a repeat, "layers.0" opens a module
    return this.draw();
  }
}
