// Training you can scrub through: a graph's `trajectory` (docs/run-record.md, "Trajectory") — the
// loss and every node's summary at each kept iteration of a training loop. An IterationBar (Play,
// a slider, the loss curve with the iteration marked) moves through them; the page then paints the
// iteration's values under the drawn nodes (GraphView.setOverlay: values only, never a new layout)
// and shows a node's values and trajectory in the inspector. Record data is hostile: numbers are
// checked before use and every text goes in as text (dom.js).
import { lineChart } from "./charts.js";
import { html, show } from "./dom.js";
import { t } from "./i18n.js";
import { fmt, heat } from "./tensorview.js";

const PLAY_MS = 120;
const num = (v) => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** The graph's trajectory when it has one worth scrubbing (two kept iterations or more), else null. */
export function trajectoryOf(g) {
  const tr = g?.trajectory;
  if (!tr || !Array.isArray(tr.iterations) || tr.iterations.length < 2) return null;
  return tr;
}

/** Positions (indices into `iterations`) that have backprop steps: iteration 0 (the graph's own) and
 * each kept iteration of `trajectory.steps`. */
export function stepPositions(tr) {
  const kept = new Set((Array.isArray(tr?.steps) ? tr.steps : []).map((s) => s?.iteration));
  return tr.iterations.map((it, k) => (k === 0 || kept.has(it) ? k : -1)).filter((k) => k >= 0);
}

/** The steps of kept position k: the graph's own at 0, else the trajectory's (null when not kept). */
export function stepsAt(g, tr, k) {
  if (k === 0) return g.steps;
  const it = tr.iterations[k];
  const found = (tr.steps || []).find((s) => s?.iteration === it);
  return Array.isArray(found?.steps) ? found.steps : null;
}

const INDEX = new WeakMap();   // trajectory -> {series: Map, scales: Map} (the record is left as it came)

function indexOf(tr) {
  let found = INDEX.get(tr);
  if (!found) {
    found = { series: new Map(), scales: new Map(), charts: new Map() };
    for (const s of Array.isArray(tr.series) ? tr.series : []) {
      if (s && typeof s.node === "string" && Array.isArray(s.stats) && Array.isArray(s.strip)) found.series.set(`${s.of}:${s.node}`, s);
    }
    INDEX.set(tr, found);
  }
  return found;
}

function seriesOf(tr, node, of) { return indexOf(tr).series.get(`${of}:${node}`) || null; }

function tensorsOf(tr, node, of) {
  return (Array.isArray(tr.tensors) ? tr.tensors : []).find((x) => x?.node === node && x.of === of && Array.isArray(x.at)) || null;
}

/** A node's [min, max, mean, std] and strip at position k, or null. */
export function summaryAt(tr, node, of, k) {
  const s = seriesOf(tr, node, of);
  const stats = s?.stats[k];
  if (!Array.isArray(stats) || stats.length !== 4) return null;
  return { stats: stats.map(num), strip: (Array.isArray(s.strip[k]) ? s.strip[k] : []).map(num) };
}

/**
 * A node's value (`of` "value") or gradient ("grad") at position k as a run-record Tensor: the kept
 * Tensor (whole, or one whose values the server keeps), else one made of the summary (statistics and
 * the strip of block means), or null when the trajectory has neither.
 */
export function tensorAt(tr, node, of, k, { fetch = true } = {}) {
  const kept = tensorsOf(tr, node.id, of)?.at[k];
  const sum = summaryAt(tr, node.id, of, k);
  const stats = sum ? { min: sum.stats[0], max: sum.stats[1], mean: sum.stats[2], std: sum.stats[3] } : null;
  // a small one's data is kept whole; its statistics are the series' (engine/record/trajectory.py)
  if (kept && typeof kept === "object" && (kept.data !== null && kept.data !== undefined)) return kept.stats ? kept : { ...kept, stats };
  // (the strip stands while the server's summary of the kept values is fetched)
  if (kept && typeof kept === "object" && typeof kept.values === "string" && fetch) return { ...kept, stats, strip: sum?.strip };
  if (!sum) return null;
  return { shape: node.shape || [], dtype: node.dtype || "", data: null, stats, strip: sum.strip };
}

/** The largest magnitude a node's values (or gradients) reach over the kept iterations: one colour
 * scale for the whole run, so the strips show values growing and shrinking. */
function scaleOf(tr, node, of) {
  const scales = indexOf(tr).scales;
  const key = `${of}:${node}`;
  if (!scales.has(key)) {
    const s = seriesOf(tr, node, of);
    let most = 0;
    for (const row of s?.stats || []) if (Array.isArray(row)) for (const v of [row[0], row[1]]) if (num(v) !== null) most = Math.max(most, Math.abs(v));
    scales.set(key, most);
  }
  return scales.get(key);
}

/** What the overlay draws under each node of a DAG at position k: id -> {text, cells: [colour]}. */
export function overlayAt(tr, graph, k, side) {
  const items = new Map();
  for (const n of graph?.nodes || []) {
    const fid = side === "forward" ? n.id : n.kind === "accumulate" ? n.forward_node : null;
    if (!fid) continue;
    const of = side === "forward" ? "value" : "grad";
    const sum = summaryAt(tr, fid, of, k);
    if (!sum) continue;
    const scale = scaleOf(tr, fid, of);
    const scalar = (n.shape || []).reduce((a, b) => a * b, 1) === 1;
    const mean = sum.stats[2];
    items.set(n.id, { text: mean === null ? "—" : scalar ? fmt(mean) : `μ ${fmt(mean)}`,
                      cells: sum.strip.map((v) => (v === null ? "#fff" : heat(v, scale) === "transparent" ? "#fff" : heat(v, scale))) });
  }
  return items;
}

/** A small line chart of one of a node's statistics over the kept iterations, the current one
 * marked. Made once per node and statistic (scrubbing only moves its marker). */
export function trajectoryChart(tr, node, of, stat, k) {
  const col = { min: 0, max: 1, mean: 2, std: 3 }[stat];
  const s = seriesOf(tr, node, of);
  if (!s) return null;
  const charts = indexOf(tr).charts;
  const key = `${of}:${stat}:${node}:${t("train.chart_value")}`;      // (a language change makes it anew)
  if (!charts.has(key)) {
    const points = tr.iterations.map((it, i) => [it, num(s.stats[i]?.[col])]).filter((p) => p[1] !== null && num(p[0]) !== null);
    if (points.length < 2) { charts.set(key, null); return null; }
    const drawn = lineChart({ tag: `${of} ${stat}`, xName: "iteration", points }, { width: 300, height: 130 });
    const card = html`<figure class="traj-chart"><figcaption class="muted small">${t(`train.chart_${of}`, { stat: t(`stats.${stat}`) })}</figcaption>${drawn.chart}</figure>`.firstElementChild;
    charts.set(key, { card, drawn });
  }
  const made = charts.get(key);
  if (!made) return null;
  mark(made.card, made.drawn, tr.iterations[k], num(s.stats[k]?.[col]));
  return made.card;
}

/** Put a chart's marker (charts.js's cursor line and point) at x, y. */
function mark(card, { sx, sy }, x, y) {
  const cursor = card.querySelector(".chart-cursor"), here = card.querySelector(".chart-here");
  if (!cursor || num(x) === null) return;
  cursor.setAttribute("x1", sx(x)); cursor.setAttribute("x2", sx(x));
  cursor.setAttribute("visibility", "visible");
  if (num(y) !== null) { here.setAttribute("cx", sx(x)); here.setAttribute("cy", sy(y)); here.setAttribute("visibility", "visible"); }
  else here.setAttribute("visibility", "hidden");
}

/**
 * Play, a slider and the loss curve over a trajectory's kept iterations (or a subset of them:
 * `positions`, e.g. those with backprop steps). onChange(k, {playing}) with k an index into
 * `iterations`; set(k) shows k without calling back.
 */
export class IterationBar {
  constructor(el, { onChange }) {
    this.el = el;
    this.onChange = onChange;
    this.tr = null;
    this.timer = null;
    el.classList.add("iter-bar");
    el.hidden = true;
  }

  /** Show the bar for a trajectory (null hides it), at position k. */
  load(tr, k = 0, positions = null) {
    this.pause();
    this.tr = tr;
    this.el.hidden = !tr;
    if (!tr) { show(this.el); return; }
    this.positions = positions || tr.iterations.map((_, i) => i);
    const loss = tr.iterations.map((it, i) => [it, num(tr.loss?.[i])]).filter((p) => p[1] !== null && num(p[0]) !== null);
    this.chart = loss.length >= 2 ? lineChart({ tag: t("train.loss"), xName: "iteration", points: loss }, { width: 300, height: 96 }) : null;
    this.loss = new Map(loss);
    show(this.el, html`
      <button class="iter-play primary" title="${t("train.play")}" aria-label="${t("train.play")}">▶</button>
      <div class="iter-main">
        <input type="range" class="iter-slider" min="0" max="${this.positions.length - 1}" value="0" aria-label="${t("train.slider")}">
        <div class="iter-label small"></div>
      </div>
      ${this.chart ? html`<figure class="iter-loss" title="${t("train.loss")}">${this.chart.chart}</figure>` : ""}`);
    this.slider = this.el.querySelector(".iter-slider");
    this.label = this.el.querySelector(".iter-label");
    this.slider.oninput = () => { this.pause(); this.onChange(this.positions[Number(this.slider.value)], { playing: false }); };
    this.el.querySelector(".iter-play").onclick = () => (this.timer ? this.pause() : this.play());
    this.set(k);
  }

  /** The position shown: slider, label and the loss curve's marker (no callback). */
  set(k) {
    if (!this.tr) return;
    let at = this.positions.indexOf(k);
    if (at < 0) at = 0;
    this.k = this.positions[at];
    this.slider.value = at;
    const it = this.tr.iterations[this.k];
    const loss = this.loss.get(it);
    this.label.textContent = `${t("train.iteration", { i: it, n: this.tr.total })}${loss !== undefined ? ` · ${t("train.loss_at", { value: fmt(loss) })}` : ""}`;
    this.label.title = this.positions.length < this.tr.iterations.length ? t("train.kept_steps", { n: this.positions.length })
      : this.tr.every > 1 ? t("train.kept_every", { every: this.tr.every }) : t("train.kept_all");
    if (this.chart) mark(this.el.querySelector(".iter-loss"), this.chart, it, loss);
  }

  play() {
    if (!this.tr) return;
    let at = this.positions.indexOf(this.k);
    if (at >= this.positions.length - 1) at = -1;
    this.el.querySelector(".iter-play").textContent = "⏸";
    this.el.classList.add("playing");
    this.timer = setInterval(() => {
      at += 1;
      if (at >= this.positions.length) { this.pause(); this.onChange(this.k, { playing: false }); return; }
      this.onChange(this.positions[at], { playing: true });
    }, PLAY_MS);
  }

  pause() {
    clearInterval(this.timer);
    this.timer = null;
    this.el.classList.remove("playing");
    const b = this.el.querySelector(".iter-play");
    if (b) b.textContent = "▶";
  }
}
