// The Output tab: what the program wrote (stdout and stderr interleaved in the order written,
// stderr in its own colour), its error with the traceback and a line link, and the files it wrote
// in its working folder (record.files) with download links.
import { html, show } from "./dom.js";
import { t, tMessage, tMessageParts, warningMessage } from "./i18n.js";

const STREAMS = ["stdout", "stderr"];

// The record's output as [stream, text] pieces in the order written. `output_order` counts code
// points (Python's characters), so the texts are split into code points, not UTF-16 units; text
// the order does not cover (an older record, or writes past its 2,000 entries) follows it.
export function interleaveOutput(record) {
  const chars = Object.fromEntries(STREAMS.map((s) => [s, Array.from(typeof record[s] === "string" ? record[s] : "")]));
  const at = { stdout: 0, stderr: 0 };
  const pieces = [];
  const add = (stream, text) => {
    if (!text) return;
    const last = pieces[pieces.length - 1];
    if (last && last[0] === stream) last[1] += text; else pieces.push([stream, text]);
  };
  for (const entry of Array.isArray(record.output_order) ? record.output_order : []) {
    const [stream, count] = Array.isArray(entry) ? entry : [];
    if (!STREAMS.includes(stream) || !(count > 0)) continue;
    add(stream, chars[stream].slice(at[stream], at[stream] + count).join(""));
    at[stream] += count;
  }
  for (const stream of STREAMS) add(stream, chars[stream].slice(at[stream]).join(""));
  return pieces;
}

// The user's lines that Python warnings on stderr point at (`<dagscope>:12: UserWarning: ...`),
// for the editor's warning marks.
export function stderrWarningLines(record) {
  const text = typeof record?.stderr === "string" ? record.stderr : "";
  const lines = [...text.matchAll(/^<dagscope>:(\d+): \w*(?:Warning|Error)\b/gm)].map((m) => Number(m[1]));
  return [...new Set(lines)];
}

// `<dagscope>:12: UserWarning: ...` names a line of the user's code: make it a link to that line.
function linkUserLines(text) {
  const parts = [];
  let at = 0;
  for (const m of text.matchAll(/<dagscope>:(\d+):/g)) {
    const n = m[1];
    parts.push(text.slice(at, m.index),
      html`<a href="#" class="jump-line" data-line="${n}" title="${t("output.error_line", { n })}">&lt;dagscope&gt;:${n}</a>:`);
    at = m.index + m[0].length;
  }
  parts.push(text.slice(at));
  return parts;
}

function printed(record) {
  const pieces = interleaveOutput(record);
  if (!pieces.length) return html`<div class="muted">${t("output.empty")}</div>`;
  const body = pieces.map(([stream, text]) => html`<span class="stream-${stream}" data-stream="${stream}">${
    stream === "stderr" ? linkUserLines(text) : text}</span>`);
  const legend = pieces.some(([stream]) => stream === "stderr")
    ? html`<div class="stream-legend muted small"><span class="stream-key stream-stderr">stderr</span> ${t("output.stderr_legend")}</div>`
    : "";
  return html`${legend}<pre class="stdout">${body}</pre>`;
}

// What other modules offer for some of the run's files beside the download (the ONNX viewer's
// "View graph" for an .onnx file): registerFileAction({ applies(file) -> bool, label() -> string,
// run(file) }). A file is the record's entry as checked here: name (the run's, shown as text),
// size, sha256, and url (same-site; GET url answers the file's bytes).
const fileActions = [];
export function registerFileAction(action) { fileActions.push(action); }

const FILE_URL = /^\/api\/files\/[A-Za-z0-9_-]{24}$/;

/** The record's files that are what the server writes (a loaded record may hold anything). */
export function runFiles(record) {
  const files = Array.isArray(record?.files) ? record.files : [];
  return files.filter((f) => f && typeof f.name === "string" && typeof f.url === "string" && FILE_URL.test(f.url)
    && Number.isInteger(f.size) && f.size >= 0);
}

function formatSize(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} kB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

function fileRow(file) {
  const base = file.name.split("/").pop();
  const actions = fileActions.filter((a) => a.applies(file)).map((a) => {
    const button = html`<button type="button" class="file-action">${a.label()}</button>`;
    button.firstElementChild.addEventListener("click", () => a.run(file));
    return button;
  });
  const sha = typeof file.sha256 === "string" ? file.sha256.slice(0, 12) : "";
  return html`<li class="run-file"><a class="file-download" href="${file.url}" download="${base}"
    title="${t("output.file_download", { name: file.name })}">${file.name}</a>
    <span class="muted small">${formatSize(file.size)}</span>
    ${sha ? html`<code class="muted small" title="SHA-256">${sha}</code>` : ""}${actions}</li>`;
}

function filesPart(record) {
  const files = runFiles(record);
  const note = typeof record.files_note === "string" ? record.files_note : "";
  if (!files.length && !note) return "";
  return html`<h3>${t("output.files")}</h3>
    ${files.length ? html`<ul class="run-files">${files.map(fileRow)}</ul>
      <div class="muted small">${t("output.files_kept")}</div>` : ""}
    ${note ? html`<div class="warn-box files-note"><div>${t("output.files_left_out")}</div><div>${note}</div></div>` : ""}`;
}

/** The error's message; a stop is worded in the page's language (the server's words are English). */
function errorMessage(err, record) {
  if (err.kind === "stopped") return t("status.stopped", { s: ((record.elapsed_ms ?? 0) / 1000).toFixed(1) });
  return err.message || "";
}

/** True when the error's message is the server's or engine's own, worded by the catalog
 * (`wording`: app/sandbox/outcome.py), not Python's words (which are shown as code). */
export const worded = (err) => err?.kind === "stopped" || tMessage(err?.wording, "\u0000") !== "\u0000";

/** The error's message as the page shows it: in the page's words where it has them, else as code. */
export function errorParts(err, record) {
  if (err.kind === "stopped") return errorMessage(err, record);
  if (worded(err)) return tMessageParts(err.wording, err.message || "");
  return html`<code class="quoted">${errorMessage(err, record)}</code>`;
}

export function showOutput(el, record, { onLine }) {
  if (!record) { show(el, html`<div class="empty-state">${t("output.none")}</div>`); return; }
  const err = record.error;
  const line = Number.isInteger(err?.line) ? err.line : null;
  const errBox = err ? html`<div class="error-box">
      <div class="error-title">${t(`error.${err.kind}`)}${err.type ? html` · <code>${err.type}</code>` : ""}</div>
      <div class="error-message">${errorParts(err, record)}</div>
      ${line ? html`<a href="#" class="jump-line" data-line="${line}">${t("output.error_line", { n: line })}</a>` : ""}
      ${err.traceback ? html`<details><summary>${t("output.traceback")}</summary><pre>${err.traceback}</pre></details>` : ""}
    </div>` : "";
  const warnings = record.warnings?.length ? html`<div class="warn-box">${record.warnings.map((w, i) => html`<div>⚠ ${tMessageParts(warningMessage(record, i), w)}</div>`)}</div>` : "";
  const meta = html`<div class="muted small">${t("output.meta", { ms: Math.round(record.elapsed_ms ?? 0), graphs: record.graphs?.length ?? 0 })}</div>`;
  show(el, html`${errBox}<h3>${t("output.stdout")}</h3>${printed(record)}${filesPart(record)}${warnings}${meta}`);
  el.querySelectorAll(".jump-line").forEach((a) => a.addEventListener("click", (e) => { e.preventDefault(); onLine(Number(a.dataset.line)); }));
}
