// Thin wrappers over the JSON API (every request goes to this same server).
import { lang } from "./i18n.js";

async function postJSON(url, body) {
  return fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

async function detail(r) {
  try { return (await r.json()).detail || r.statusText; } catch { return r.statusText; }
}

const MAX_WAIT_S = 15;

/**
 * Run code. A busy server (429) says when to come back in Retry-After: wait that long once
 * (telling the page through onWait) rather than fail a student's click.
 */
export async function runCode(code, options = {}, { onWait, stopKey } = {}) {
  const body = stopKey ? { code, options, stop_key: stopKey } : { code, options };
  let r = await postJSON("/api/run", body);
  if (r.status === 429) {
    const wait = Math.min(MAX_WAIT_S, Number(r.headers.get("retry-after")) || 2);
    onWait?.(wait);
    await new Promise((done) => setTimeout(done, wait * 1000));
    r = await postJSON("/api/run", body);
  }
  if (!r.ok) throw new Error(await detail(r));
  return r.json();
}

/** A fresh stop key for one run: 128 random bits, base64url (the server's STOP_KEY). Only this
 * page knows it, so only this page can stop the run (and only from this computer). */
export function newStopKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Ask the server to end the run sent with `stopKey`; true when it was still going. */
export async function stopRun(stopKey) {
  const r = await postJSON("/api/run/stop", { stop_key: stopKey });
  return r.ok;
}

const svgCache = new Map();   // the same drawing asked twice (tab switches, stepper) costs nothing

/** A Graph drawn by Graphviz: SVG text, or a Blob for png/dot. Throws with the server's reason. */
export async function render(graph, format = "svg", direction = "TB") {
  const body = { graph, format, direction, lang };   // the drawing's own word ("scalar") in the page's language
  const key = format === "svg" ? JSON.stringify(body) : null;
  if (key && svgCache.has(key)) return svgCache.get(key);
  let r = await postJSON("/api/render", body);
  // every render slot busy (503): come back when Retry-After says, a few times, before failing
  for (let tries = 0; r.status === 503 && tries < 3; tries++) {
    const wait = Math.min(MAX_WAIT_S, Number(r.headers.get("retry-after")) || 2);
    await new Promise((done) => setTimeout(done, wait * 1000));
    r = await postJSON("/api/render", body);
  }
  if (!r.ok) throw new Error(await detail(r));
  const out = format === "svg" ? await r.text() : await r.blob();
  if (key) {
    if (svgCache.size > 64) svgCache.delete(svgCache.keys().next().value);
    svgCache.set(key, out);
  }
  return out;
}

const summaries = new Map();   // run/tensor -> promise of its summary (a node clicked twice asks once)

/**
 * The Tensor a run's record names by `values` id, summarised by the server from the values it
 * keeps (stats, preview, heat-map: the numbers an in-process record holds). Throws with the
 * server's reason; `status` 404 when the values are no longer kept.
 */
export function tensorSummary(runId, ref) {
  const key = `${runId}/${ref}`;
  if (!summaries.has(key)) {
    if (summaries.size > 256) summaries.delete(summaries.keys().next().value);
    const asked = fetch(`${tensorValuesURL(runId, ref)}/summary`).then(async (r) => {
      if (r.ok) return r.json();
      const error = new Error(await detail(r));
      error.status = r.status;
      throw error;
    });
    asked.catch(() => summaries.delete(key));      // a failure is not kept: a later click asks again
    summaries.set(key, asked);
  }
  return summaries.get(key);
}

/** Where the server serves a kept tensor's values (a .npy file). */
export function tensorValuesURL(runId, ref) {
  return `/api/runs/${encodeURIComponent(runId)}/tensors/${encodeURIComponent(ref)}`;
}

export async function examples() {
  const r = await fetch("/api/examples");
  return r.ok ? (await r.json()).examples : [];
}

export async function opCards() {
  const r = await fetch("/api/ops");
  return r.ok ? r.json() : { ops: {}, grad_fns: {} };
}

export async function share(code, state) {
  const r = await postJSON("/api/snippets", { code, state });
  if (!r.ok) throw new Error(await detail(r));
  return r.json();
}
