// The run Compare sets beside the next one, kept across a reload of the tab (sessionStorage: this
// tab only, gone with it). The page shows no run it did not make or load, and the server keeps no
// record by id, so what Compare reads of a run is kept here: its code, what it printed and each
// graph's forward DAG with its nodes' statistics (not the backward graph, steps, trajectory or
// values). A run too large for the tab's storage is named as such, so Compare can say why it
// has nothing to compare after the reload.
const KEY = "dagscope.comparedRun";
export const MAX_KEPT_CHARS = 2_000_000;     // sessionStorage holds about 5 MB per origin

const slimValue = (v) => (v && typeof v === "object"
  ? { stats: v.stats ?? null, ...(typeof v.data === "number" ? { data: v.data } : {}) } : null);

/** What Compare reads of `record` (static/js/compare.js, rundiff.js). */
export function slimRecord(record) {
  const graphs = (record?.graphs || []).map((g) => ({
    id: g.id, title: g.title, title_message: g.title_message, kind: g.kind, capture: g.capture,
    forward: g.forward ? { nodes: (g.forward.nodes || []).map((n) => {
      const { value, grad, value_after, gradcheck, ...rest } = n;      // eslint-disable-line no-unused-vars
      return { ...rest, value: slimValue(value), grad: null };
    }), edges: g.forward.edges || [] } : null,
  }));
  return { stdout: typeof record?.stdout === "string" ? record.stdout : "", graphs, elapsed_ms: record?.elapsed_ms ?? null };
}

/** Keep the run shown now (`code` and its record) for after a reload; quietly nothing where
 * storage is refused (a private window's quota). */
export function keepRun(code, record) {
  let text = JSON.stringify({ code, record: slimRecord(record) });
  if (text.length > MAX_KEPT_CHARS) text = JSON.stringify({ code: null, record: null, tooLarge: true });
  try {
    sessionStorage.setItem(KEY, text);
  } catch {
    try { sessionStorage.removeItem(KEY); } catch { /* storage refused */ }
  }
}

/** The run kept before the reload: {code, record}, {tooLarge: true}, or null (none, or unreadable). */
export function keptRun() {
  try {
    const kept = JSON.parse(sessionStorage.getItem(KEY) || "null");
    if (kept?.tooLarge === true) return { tooLarge: true };
    if (typeof kept?.code !== "string" || !Array.isArray(kept?.record?.graphs)) return null;
    return { code: kept.code, record: kept.record, reloaded: true };
  } catch {
    return null;
  }
}
