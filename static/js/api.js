// Thin wrappers over the JSON API (every request goes to this same server).
import { lang, t, tMessage } from "./i18n.js";

async function postJSON(url, body) {
  return fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

/** Why the server refused: its `detail`, in the page's words where the answer carries their key
 * (`detail_message`: app/responses.py worded). */
async function detail(r) {
  return (await refusal(r)).message;
}

/** The server's refusal as an Error: its message as detail() says it, and `wording` the answer's
 * detail_message (a drawing's failure quotes Graphviz's own words as code: graphview.js). */
async function refusal(r) {
  let body = null;
  try { body = await r.json(); } catch { /* not JSON: its status says it */ }
  const said = typeof body?.detail === "string" ? body.detail : r.statusText;
  const error = new Error(body?.detail_message ? tMessage(body.detail_message, said) : said);
  if (body?.detail_message) error.wording = body.detail_message;
  return error;
}

/** post(), with a request that never reached the server (the browser's own English: "Failed to
 * fetch") said in the page's words. */
async function reaching(post) {
  try {
    return await post();
  } catch {
    throw new Error(t("api.unreachable"));
  }
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
const asked = new Map();      // drawings asked for and not yet answered: key -> promise
let waiting = [];             // drawings asked for in this moment, sent together (drawSoon)

async function retryBusy(post) {
  let r = await reaching(post);
  // every render slot busy (503): come back when Retry-After says, a few times, before failing
  for (let tries = 0; r.status === 503 && tries < 3; tries++) {
    const wait = Math.min(MAX_WAIT_S, Number(r.headers.get("retry-after")) || 2);
    await new Promise((done) => setTimeout(done, wait * 1000));
    r = await reaching(post);
  }
  if (!r.ok) throw await refusal(r);
  return r;
}

/** A Graph drawn by Graphviz: SVG text, or a Blob for png/dot. Throws with the server's reason. */
export async function render(graph, format = "svg", direction = "TB") {
  // the drawing's own word ("scalar") in the page's language
  if (format === "svg") return drawSvg(graph, direction, lang);
  const r = await retryBusy(() => postJSON("/api/render", { graph, format, direction, lang }));
  return r.blob();
}

/** SVG text of a graph. Drawings asked for in the same moment (Forward's and Backward's, a view's
 * wrapped rows) go to the server in one request, laid out by one `dot`: starting a confined
 * process costs more than laying out a small graph. */
function drawSvg(graph, direction, lang) {
  const key = JSON.stringify({ graph, direction, lang });
  if (svgCache.has(key)) return Promise.resolve(svgCache.get(key));
  if (asked.has(key)) return asked.get(key);
  const promise = new Promise((resolve, reject) => {
    // sent once the page's current work is done: a view asks for all its rows, and load() for
    // both DAGs, in one synchronous stretch
    if (!waiting.length) queueMicrotask(sendWaiting);
    waiting.push({ key, graph, direction, lang, resolve, reject });
  });
  asked.set(key, promise);
  promise.then((svg) => {
    if (svgCache.size > 64) svgCache.delete(svgCache.keys().next().value);
    svgCache.set(key, svg);
  }, () => {}).finally(() => asked.delete(key));
  return promise;
}

// A large drawing goes on its own (dot lays out one graph at a time: two large ones drawn by two
// processes use both cores); small ones are packed within the server's bounds of one batch.
const ALONE_NODES = 300, BATCH_NODES = 600, BATCH_MAX = 16;

function sendWaiting() {
  const batches = [];
  let open = null;
  for (const w of waiting) {
    const n = w.graph.nodes.length;
    if (n > ALONE_NODES) { batches.push([w]); continue; }
    if (!open || open.length >= BATCH_MAX || open.nodes + n > BATCH_NODES) {
      open = Object.assign([], { nodes: 0 });
      batches.push(open);
    }
    open.push(w);
    open.nodes += n;
  }
  waiting = [];
  for (const batch of batches) {
    const body = { drawings: batch.map((w) => ({ graph: w.graph, direction: w.direction, lang: w.lang })) };
    retryBusy(() => postJSON("/api/render/batch", body))
      .then((r) => r.json())
      .then(({ svgs }) => batch.forEach((w, i) => (typeof svgs?.[i] === "string" ? w.resolve(svgs[i]) : w.reject(new Error(t("graph.no_drawing"))))),
            (err) => batch.forEach((w) => w.reject(err)));
  }
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
