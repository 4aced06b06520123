// A run-record Tensor shown to a student: a table (coloured like a heat-map) when its data is
// carried, otherwise its statistics and a heat strip of the preview elements. A sandboxed run's
// large tensor names its values kept on the server (`values`): its heat-map is fetched then.
import { tensorSummary, tensorValuesURL } from "./api.js";
import { html, svg } from "./dom.js";
import { t } from "./i18n.js";

let runId = null;
// A table row shows at most this many values (wider rows wrap in blocks): 8, or 4 on a screen
// narrower than 1200 px (1024x768), where the side panel has no room for 8 readable columns.
const tableColumns = () => (window.innerWidth < 1200 ? 4 : 8);

/** The run whose kept values the shown record's `values` ids name (null: none kept). */
export function setTensorRun(id) { runId = typeof id === "string" ? id : null; }

export function fmt(x) {
  if (typeof x !== "number") return String(x);
  if (Number.isInteger(x) && Math.abs(x) < 1e6) return x.toFixed(Math.abs(x) < 1e4 ? 1 : 0).replace(/\.0$/, ".");
  const a = Math.abs(x);
  if (a !== 0 && (a < 1e-3 || a >= 1e5)) return x.toExponential(2);
  return x.toFixed(4).replace(/0+$/, "").replace(/\.$/, ".");
}

/** Diverging colour: blue for negative, white at zero, red for positive, scaled by `scale`. */
export function heat(x, scale) {
  if (typeof x !== "number" || !scale) return "transparent";
  const s = Math.max(-1, Math.min(1, x / scale));
  const a = Math.abs(s) * 0.55;
  return s >= 0 ? `rgba(220, 38, 38, ${a})` : `rgba(37, 99, 235, ${a})`;
}

/**
 * A large tensor's picture: `heatmap` is a small 2-D grid (block means over the tensor's last two
 * dimensions, at most a few dozen cells a side), drawn one square per cell.
 */
function heatmapSVG(grid, scale) {
  const rows = grid.map((r) => (Array.isArray(r) ? r : [r]));
  const w = Math.max(...rows.map((r) => r.length));
  const cell = Math.max(4, Math.min(14, Math.floor(280 / Math.max(w, rows.length))));
  const rects = rows.flatMap((r, i) => r.map((v, j) =>
    svg`<rect x="${j * cell}" y="${i * cell}" width="${cell}" height="${cell}" fill="${heat(v, scale) === "transparent" ? "#fff" : heat(v, scale)}"><title>${fmt(v)}</title></rect>`));
  return html`<svg class="heatmap" width="${w * cell}" height="${rows.length * cell}" viewBox="0 0 ${w * cell} ${rows.length * cell}" role="img" aria-label="${t("tensor.heatmap")}">${rects}</svg>
    <div class="muted small">${t("tensor.heatmap_note", { rows: rows.length, cols: w })}</div>`;
}

export function shapeText(shape) { return shape ? `[${shape.join(", ")}]` : ""; }

export function flatten(data) { return Array.isArray(data) ? data.flat(Infinity) : [data]; }

/**
 * The DOM of a Tensor (null -> a dash). One whose values the server keeps is drawn from the record
 * at once (stats, preview strip), then again from the server's summary (with its heat-map) when
 * that arrives; if it cannot (expired), a note says why and the record's view stays.
 */
export function tensorHTML(tensor, options = {}) {
  if (!tensor || typeof tensor.values !== "string" || tensor.heatmap) return tensorBody(tensor, options);
  const run = runId;
  const holder = html`<div class="tensor-kept">${tensorBody(tensor, options)}<div class="muted small tensor-fetch" role="status">${t(run ? "tensor.loading" : "tensor.not_kept")}</div></div>`;
  const el = holder.firstElementChild;
  if (run) {
    tensorSummary(run, tensor.values).then((full) => {
      el.replaceChildren(tensorBody(full, options),
        html`<div class="small"><a href="${tensorValuesURL(run, tensor.values)}" download="${`${tensor.values}.npy`}">${t("tensor.download")}</a></div>`);
    }, (error) => {
      el.querySelector(".tensor-fetch").textContent = error.status === 404 ? t("tensor.expired") : t("tensor.fetch_failed", { why: error.message });
      el.querySelector(".tensor-fetch").classList.add("error");
    });
  }
  return holder;
}

function tensorBody(tensor, { label = "" } = {}) {
  if (!tensor) return html`<div class="tensor muted">—</div>`;
  const head = html`<div class="tensor-head">${label ? html`<b>${label}</b> ` : ""}<span class="muted">${tensor.dtype || ""} ${shapeText(tensor.shape)}</span></div>`;
  const st = tensor.stats;
  const scale = st ? Math.max(Math.abs(st.min), Math.abs(st.max)) : 0;
  let body;
  if (tensor.data !== null && tensor.data !== undefined) {
    const d = tensor.data;
    if (!Array.isArray(d)) body = html`<div class="scalar" style="background:${heat(d, scale)}">${fmt(d)}</div>`;
    else {
      const rows = Array.isArray(d[0]) ? d.map((r) => flatten(r)) : [d];
      const width = Math.max(...rows.map((r) => r.length));
      // wider than tableColumns(): blocks of that many columns, one under the other, each captioned
      // with its columns (as NumPy and PyTorch print a wide matrix): readable, never scrolled sideways
      const columns = tableColumns();
      const blocks = [];
      for (let from = 0; from < width; from += columns) blocks.push(from);
      body = blocks.map((from) => html`<table class="tensor-table">${blocks.length > 1
        ? html`<caption class="muted small">${t("tensor.columns", { from, to: Math.min(width, from + columns) - 1 })}</caption>` : ""}${
        rows.map((r) => html`<tr>${r.slice(from, from + columns).map((v) =>
          html`<td style="background:${heat(v, scale)}">${fmt(v)}</td>`)}</tr>`)}</table>`);
    }
  } else if (Array.isArray(tensor.heatmap) && tensor.heatmap.length) {
    body = heatmapSVG(tensor.heatmap, scale);
  } else if (Array.isArray(tensor.strip) && !tensor.preview) {
    // a training iteration's summary (training.js): block means of the flattened values, in order
    body = html`<div class="heat-strip" title="${t("tensor.strip")}">${tensor.strip.map((v) =>
      html`<span style="background:${heat(v, scale)}" title="${fmt(v)}"></span>`)}</div>
      <div class="muted small">${t("tensor.strip_note", { n: tensor.strip.length })}</div>`;
  } else {
    const prev = tensor.preview || [];
    body = html`<div class="heat-strip" title="${t("tensor.preview")}">${prev.map((v) =>
      html`<span style="background:${heat(v, scale)}" title="${fmt(v)}"></span>`)}</div>
      <div class="muted small">${t("tensor.preview_note", { n: prev.length })}</div>`;
  }
  const stats = st ? html`<div class="stats">${["min", "max", "mean", "std"].map((k) =>
    html`<span><i>${t(`stats.${k}`)}</i> ${fmt(st[k])}</span>`)}</div>` : "";
  return html`<div class="tensor">${head}${body}${stats}</div>`;
}
