// The Output tab: what the program printed, and its error with the traceback and a line link.
import { t } from "./i18n.js";
import { esc } from "./tensorview.js";

export function showOutput(el, record, { onLine }) {
  if (!record) { el.innerHTML = `<div class="empty-state">${t("output.none")}</div>`; return; }
  const err = record.error;
  const errHTML = err ? `<div class="error-box">
      <div class="error-title">${esc(t(`error.${err.kind}`))}${err.type ? ` · <code>${esc(err.type)}</code>` : ""}</div>
      <div class="error-message">${esc(err.message || "")}</div>
      ${err.line ? `<a href="#" class="jump-line" data-line="${err.line}">${t("output.error_line", { n: err.line })}</a>` : ""}
      ${err.traceback ? `<details><summary>${t("output.traceback")}</summary><pre>${esc(err.traceback)}</pre></details>` : ""}
    </div>` : "";
  const warnings = record.warnings?.length ? `<div class="warn-box">${record.warnings.map((w) => `<div>⚠ ${esc(w)}</div>`).join("")}</div>` : "";
  const stdout = record.stdout ? `<pre class="stdout">${esc(record.stdout)}</pre>` : `<div class="muted">${t("output.empty")}</div>`;
  const meta = `<div class="muted small">${t("output.meta", { ms: Math.round(record.elapsed_ms ?? 0), graphs: record.graphs?.length ?? 0 })}</div>`;
  el.innerHTML = `${errHTML}<h3>${t("output.stdout")}</h3>${stdout}${warnings}${meta}`;
  el.querySelectorAll(".jump-line").forEach((a) => a.addEventListener("click", (e) => { e.preventDefault(); onLine(Number(a.dataset.line)); }));
}
