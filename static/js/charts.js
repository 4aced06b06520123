// The Charts tab: every scalar series a run logged (SummaryWriter.add_scalar / add_scalars, the
// record's `summaries`), the last snapshot of each histogram, and, when the run logged no scalar,
// the numbers its loop printed under a recognisable name ("epoch 3, loss 0.4127"). Each chart is
// an SVG drawn here, with the value under the pointer shown as text.
import { html, show, svg } from "./dom.js";
import { t, tCode } from "./i18n.js";

// what a printed number may be called to be charted (the last word of its name), and what may
// serve as its x axis
const METRIC = /^(loss|acc|accuracy|perplexity|ppl|error|err|mse|mae|rmse|lr|reward|score|nll|bpd)$/;
const X_NAMES = ["step", "iter", "iteration", "batch", "epoch", "it"];
// a name of one or two words, then ":" or "=" or nothing, then a number (PyTorch's tutorials write
// "loss: 0.3", d2l "epoch 1, loss 0.04", nanoGPT "step 100: train loss 2.5", Keras "loss: 0.3")
const PAIR = /([A-Za-z][A-Za-z_]*(?:[ _-][A-Za-z][A-Za-z_]*)?)\s*[:=]?\s*\[?\s*(-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)(%?)/g;
const MAX_POINTS = 2000;             // per printed series; beyond it every other point is kept
const W = 420, H = 190, L = 52, R = 12, TOP = 12, B = 30;
const CARD_W = W, CARD_H = H;

const finite = (v) => typeof v === "number" && Number.isFinite(v);

/** The numbers a program printed under recognisable names, as series [{tag, xName, points}]. */
export function printedSeries(stdout) {
  const series = new Map();          // metric name -> {tag, rows: [{x: {name: value}, y, index}]}
  for (const line of String(stdout ?? "").split("\n").slice(0, 20000)) {
    const pairs = [];
    for (const m of line.matchAll(PAIR)) {
      const name = m[1].toLowerCase().replace(/[_-]/g, " ").trim();
      const value = Number(m[2]);
      if (finite(value)) pairs.push([name, value]);
    }
    const xs = Object.fromEntries(pairs.filter(([n]) => X_NAMES.includes(n)));
    for (const [name, value] of pairs) {
      const last = name.split(" ").pop();
      if (!METRIC.test(last) && !name.includes("loss")) continue;
      if (!series.has(name)) series.set(name, []);
      series.get(name).push({ x: xs, y: value });
    }
  }
  const out = [];
  for (const [name, rows] of series) {
    if (rows.length < 2) continue;
    // the x axis: the first x name that every row has and that only grows, else the print's count
    const xName = X_NAMES.find((n) => rows.every((r, i) => n in r.x && (i === 0 || r.x[n] > rows[i - 1].x[n])));
    let points = rows.map((r, i) => [xName ? r.x[xName] : i, r.y]);
    while (points.length > MAX_POINTS) points = points.filter((_, i) => i % 2 === 0);
    out.push({ tag: name, xName: xName ?? null, points, source: "printed" });
  }
  return out;
}

/** What the Charts tab draws for a record: logged series first; printed ones when none was logged. */
export function chartSeries(record) {
  const logged = (Array.isArray(record?.summaries?.scalars) ? record.summaries.scalars : [])
    .filter((s) => s && typeof s.tag === "string" && Array.isArray(s.points))
    .map((s) => ({ tag: s.tag, xName: "step", source: "logged", logged: s.logged,
                   points: s.points.filter((p) => Array.isArray(p) && finite(p[0]) && finite(p[1])) }))
    .filter((s) => s.points.length);
  return logged.length ? logged : printedSeries(record?.stdout);
}

/** Round values for an axis from lo to hi; whole numbers only for an axis of counts (epochs, steps). */
function ticks(lo, hi, n = 4, whole = false) {
  if (lo === hi) return [lo];
  const raw = (hi - lo) / n;
  const mag = 10 ** Math.floor(Math.log10(raw));
  let step = [1, 2, 2.5, 5, 10].map((f) => f * mag).find((s) => s >= raw);
  if (whole) step = Math.max(1, Math.ceil(step));
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

const fmt = (v) => (Math.abs(v) >= 1e4 || (v !== 0 && Math.abs(v) < 1e-3) ? v.toExponential(2) : String(Number(v.toPrecision(4))));

/** One series as an SVG line chart: {chart, sx, sy, x0, x1}; `size` {width, height} in px at 1:1 (the
 * Charts tab's cards by default; training.js draws smaller ones and marks an iteration on them). */
export function lineChart(series, { width: W = CARD_W, height: H = CARD_H } = {}) {
  const xs = series.points.map((p) => p[0]), ys = series.points.map((p) => p[1]);
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  let [y0, y1] = [Math.min(...ys), Math.max(...ys)];
  if (y0 === y1) { y0 -= Math.abs(y0) * 0.1 || 1; y1 += Math.abs(y1) * 0.1 || 1; }
  const sx = (x) => L + (x1 === x0 ? (W - L - R) / 2 : ((x - x0) / (x1 - x0)) * (W - L - R));
  const sy = (y) => TOP + (1 - (y - y0) / (y1 - y0)) * (H - TOP - B);
  const d = series.points.map(([x, y], i) => `${i ? "L" : "M"}${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join("");
  const xLabel = series.xName ? t(`charts.x_${series.xName}`) : t("charts.x_print");
  const dots = series.points.length <= 60
    ? series.points.map(([x, y]) => svg`<circle cx="${sx(x)}" cy="${sy(y)}" r="2.5" class="chart-dot"/>`) : "";
  const chart = svg`<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="${series.tag}">
    ${ticks(y0, y1).map((v) => svg`<line x1="${L}" x2="${W - R}" y1="${sy(v)}" y2="${sy(v)}" class="grid"/><text x="${L - 6}" y="${sy(v) + 4}" class="tick y">${fmt(v)}</text>`)}
    ${ticks(x0, x1, 5, xs.every(Number.isInteger)).map((v) => svg`<text x="${sx(v)}" y="${H - B + 16}" class="tick x">${fmt(v)}</text>`)}
    <text x="${W - R}" y="${H - 2}" class="axis-name">${xLabel}</text>
    <path d="${d}" class="chart-line"/>${dots}
    <line class="chart-cursor" x1="0" x2="0" y1="${TOP}" y2="${H - B}" visibility="hidden"/>
    <circle class="chart-here" r="4" cx="0" cy="0" visibility="hidden"/>
    <rect class="chart-hit" x="${L}" y="${TOP}" width="${W - L - R}" height="${H - TOP - B}"/></svg>`;
  return { chart, sx, sy, x0, x1 };
}

/** Pointer over a chart: the nearest point's x and value, written as text beside the title. */
function followPointer(card, series, { sx, sy }) {
  const el = card.querySelector("svg.chart");
  const readout = card.querySelector(".chart-value");
  const cursor = el.querySelector(".chart-cursor"), here = el.querySelector(".chart-here");
  const xName = series.xName ? t(`charts.x_${series.xName}`) : t("charts.x_print");
  el.addEventListener("pointermove", (ev) => {
    const box = el.getBoundingClientRect();
    const px = ((ev.clientX - box.left) / box.width) * W;
    let best = series.points[0];
    for (const p of series.points) if (Math.abs(sx(p[0]) - px) < Math.abs(sx(best[0]) - px)) best = p;
    cursor.setAttribute("x1", sx(best[0])); cursor.setAttribute("x2", sx(best[0]));
    here.setAttribute("cx", sx(best[0])); here.setAttribute("cy", sy(best[1]));
    cursor.setAttribute("visibility", "visible"); here.setAttribute("visibility", "visible");
    readout.textContent = t("charts.value", { x: xName, at: fmt(best[0]), value: fmt(best[1]) });
  });
  el.addEventListener("pointerleave", () => {
    cursor.setAttribute("visibility", "hidden"); here.setAttribute("visibility", "hidden");
    readout.textContent = t("charts.last", { value: fmt(series.points[series.points.length - 1][1]) });
  });
}

function histogramCard(h) {
  const snaps = Array.isArray(h?.snapshots) ? h.snapshots : [];
  const s = snaps[snaps.length - 1];
  if (typeof h?.tag !== "string" || !s || !Array.isArray(s.counts) || !Array.isArray(s.edges)) return "";
  const counts = s.counts.map((c) => (finite(c) && c > 0 ? c : 0));
  const edges = s.edges.filter(finite);
  if (edges.length !== counts.length + 1 || !counts.length) return "";
  const top = Math.max(...counts, 1), bw = (W - L - R) / counts.length;
  const bars = counts.map((c, i) => svg`<rect x="${L + i * bw + 0.5}" width="${Math.max(bw - 1, 0.5)}" y="${TOP + (1 - c / top) * (H - TOP - B)}" height="${(c / top) * (H - TOP - B)}" class="hist-bar"><title>${fmt(edges[i])} … ${fmt(edges[i + 1])}: ${c}</title></rect>`);
  return html`<figure class="chart-card"><figcaption><b>${h.tag}</b> <span class="badge">${t("charts.histogram", { step: finite(s.step) ? s.step : "?" })}</span></figcaption>
    <svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="${h.tag}">${bars}
      <text x="${L}" y="${H - B + 16}" class="tick x">${fmt(edges[0])}</text>
      <text x="${W - R}" y="${H - B + 16}" class="tick x end">${fmt(edges[edges.length - 1])}</text></svg></figure>`;
}

export function showCharts(el, record) {
  const series = chartSeries(record);
  const histograms = Array.isArray(record?.summaries?.histograms) ? record.summaries.histograms : [];
  if (!series.length && !histograms.length) {
    show(el, html`<div class="empty-state"><h3>${t(record ? "charts.none_title" : "empty.not_run_title")}</h3>
      <p>${tCode(record ? "charts.none" : "empty.not_run")}</p></div>`);
    return;
  }
  const printed = series.length && series[0].source === "printed";
  const cards = series.map((s) => {
    const drawn = lineChart(s);
    const card = html`<figure class="chart-card" data-series="${s.tag}"><figcaption><b>${s.tag}</b>
      <span class="badge">${t(s.source === "printed" ? "charts.from_print" : "charts.from_writer")}</span>
      <span class="chart-value muted">${t("charts.last", { value: fmt(s.points[s.points.length - 1][1]) })}</span></figcaption>
      ${drawn.chart}</figure>`.firstElementChild;
    followPointer(card, s, drawn);
    return card;
  });
  show(el, html`<div class="charts"><p class="muted">${tCode(printed ? "charts.explain_printed" : "charts.explain_logged")}</p>
    <div class="chart-grid">${cards}${histograms.map(histogramCard)}</div></div>`);
}
