// Opening an ONNX file (issue 19, the Netron use): a file chosen with the toolbar's button or dropped
// on the page goes to POST /api/onnx/open, which opens it as a sandboxed run of Dagscope's own
// program (dagscope.onnx.load); the page then shows that program and its record as any run's:
// the graph on Static (folded by module, searchable, the inspector with shapes, dtypes and the
// initializers' statistics), its passes, its kernels. A run's exported .onnx file gets a
// "View graph" action on the Output tab that opens it in a new tab of the page (?onnx=<file id>).
import { registerFileAction } from "./output.js";
import { t } from "./i18n.js";

export const MAX_BYTES = 4 * 1024 * 1024;   // app/routes/onnx_import.py's MAX_FILE_BYTES
const FILE_ID = /^[A-Za-z0-9_-]{24}$/;

function base64(bytes) {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

async function post(body) {
  const r = await fetch("/api/onnx/open", { method: "POST", headers: { "content-type": "application/json" },
                                            body: JSON.stringify(body) });
  let answer = null;
  try { answer = await r.json(); } catch { /* the message below says what came */ }
  if (!r.ok) {
    const detail = typeof answer?.detail === "string" ? answer.detail : r.statusText || String(r.status);
    throw new Error(detail);
  }
  return answer;
}

/** The ?onnx= file id of a "View graph" tab, or null. */
export function fileIdFromAddress() {
  const id = new URLSearchParams(location.search).get("onnx");
  return id && FILE_ID.test(id) ? id : null;
}

/**
 * Wire the button, its hidden file input and dropping on `target`. `status(text, kind)` says what
 * happens; `show({ code, record, name })` puts the program in the editor and the record on the page.
 */
export function setupOnnxOpen({ button, input, target, status, show }) {
  let busy = false;
  const open = async (body, name) => {
    if (busy) return;
    busy = true;
    button.disabled = true;
    status(t("onnx.opening", { name }), "busy");
    try {
      await show(await post(body));
    } catch (e) {
      status(t("onnx.failed", { name, message: e.message }), "bad");
    } finally {
      busy = false;
      button.disabled = false;
    }
  };
  const openFile = async (file) => {
    if (!file) return;
    if (file.size > MAX_BYTES) {
      status(t("onnx.too_big", { name: file.name, mb: (file.size / (1024 * 1024)).toFixed(1), max: MAX_BYTES / (1024 * 1024) }), "bad");
      return;
    }
    const bytes = new Uint8Array(await file.arrayBuffer());
    await open({ name: file.name, data: base64(bytes) }, file.name);
  };
  button.addEventListener("click", () => input.click());
  input.addEventListener("change", () => { const f = input.files?.[0]; input.value = ""; openFile(f); });
  // dropping a file anywhere on the page (the editor keeps dropped text as text)
  const hasFile = (e) => [...(e.dataTransfer?.types || [])].includes("Files");
  target.addEventListener("dragover", (e) => {
    if (!hasFile(e)) return;
    e.preventDefault();
    target.classList.add("onnx-dropping");
  });
  target.addEventListener("dragleave", (e) => { if (e.target === target || !target.contains(e.relatedTarget)) target.classList.remove("onnx-dropping"); });
  target.addEventListener("drop", (e) => {
    if (!hasFile(e)) return;
    e.preventDefault();
    target.classList.remove("onnx-dropping");
    openFile(e.dataTransfer.files[0]);
  });
  // the Output tab's exported .onnx files: View graph opens them in a new tab of the page
  registerFileAction({
    applies: (file) => /\.onnx$/i.test(file.name),
    label: () => t("onnx.view_graph"),
    run: (file) => {
      const id = file.url.split("/").pop();
      window.open(`/?onnx=${encodeURIComponent(id)}`, "_blank", "noopener");
    },
  });
  return { openFileId: (id) => open({ file_id: id, name: "model.onnx" }, id) };
}
