// The embed page (?embed=1; docs/embed.md): the page in an <iframe> of a course page, a slide or a
// notebook. Its API for the framing page is window.postMessage: the framing page sends
// {dagscope: "setCode", code} / {dagscope: "run"} / {dagscope: "select", view} and gets
// {dagscope: "ready"} once, {dagscope: "ran", ok, error, stdout, graphs} after each run, and
// {dagscope: "error", message} for a message it cannot take. Only the frame's parent is heard, and
// only from an origin the server lets frame the page (DAGSCOPE_EMBED_ANCESTORS, handed over by
// the template): another window, or a parent of another origin, is ignored.

const MAX_STDOUT = 20000;   // what a "ran" message carries of the printed output

/** Whether `origin` is one of the framing sources ('self', an origin, or *.host patterns). */
export function originAllowed(origin, sources, self = location.origin) {
  return (sources || []).some((s) => {
    if (s === "'self'") return origin === self;
    const wild = /^(https?:\/\/)\*\.(.+)$/.exec(s);
    if (!wild) return origin === s;
    const m = /^(https?:\/\/)([^/:]+)((?::\d+)?)$/.exec(origin);
    const [host, port] = wild[2].split(/(?=:\d+$)/);
    return !!m && m[1] === wild[1] && m[2].endsWith(`.${host}`) && (m[3] || "") === (port || "");
  });
}

/** What a run tells the framing page (the record stays in the frame). */
export function ranMessage(record) {
  return { dagscope: "ran", ok: !!record?.ok, error: record?.error ? { kind: record.error.kind, message: record.error.message } : null,
           stdout: String(record?.stdout ?? "").slice(0, MAX_STDOUT), graphs: (record?.graphs || []).length };
}

/** Listen to the framing page: `api` has setCode(code), run() -> record, select(view). */
export function listen(sources, api) {
  if (window.parent === window) return;
  const parentOrigin = location.ancestorOrigins?.[0];
  if (parentOrigin && originAllowed(parentOrigin, sources)) window.parent.postMessage({ dagscope: "ready" }, parentOrigin);
  window.addEventListener("message", async (e) => {
    if (e.source !== window.parent || !originAllowed(e.origin, sources)) return;
    const msg = e.data;
    if (!msg || typeof msg !== "object" || typeof msg.dagscope !== "string") return;
    const answer = (m) => e.source.postMessage(m, e.origin);
    try {
      if (msg.dagscope === "setCode" && typeof msg.code === "string") api.setCode(msg.code);
      else if (msg.dagscope === "run") answer(ranMessage(await api.run()));
      else if (msg.dagscope === "select" && typeof msg.view === "string") await api.select(msg.view);
      else answer({ dagscope: "error", message: `unknown message ${JSON.stringify(msg.dagscope).slice(0, 80)}` });
    } catch (err) {
      answer({ dagscope: "error", message: String(err?.message || err).slice(0, 500) });
    }
  });
}
