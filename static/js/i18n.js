// The message catalog: every user-facing string comes from static/i18n/<lang>.json via t().
let messages = {};
let fallback = {};
// The op registry's formulas and rules in the page's language (static/i18n/ops.<lang>.json: the
// engine's English text -> its translation; a formula that is all math reads alike and is not listed)
let opTexts = {};
export let lang = "en";

export const LANGS = ["en", "zh-CN"];

async function fetchCatalog(code) {
  const r = await fetch(`/static/i18n/${code}.json`);
  return r.ok ? r.json() : {};
}

/** Load a language (English stays loaded as the fallback for any missing key). */
export async function setLang(code) {
  if (!LANGS.includes(code)) code = "en";
  if (!Object.keys(fallback).length) fallback = await fetchCatalog("en");
  messages = code === "en" ? fallback : await fetchCatalog(code);
  opTexts = code === "en" ? {} : await fetchCatalog(`ops.${code}`);
  lang = code;
  document.documentElement.lang = code;
  applyTo(document);
}

/** An op's formula or rule (the registry's English, as the record and /api/ops give it) in the
 * page's language, or as it is when the catalog has none. */
export function tOp(text) {
  if (typeof text !== "string") return text;
  // a custom Function's rule (engine/autograd_function.py): "Square.backward(ctx, grad) (user-written)"
  const custom = /^(.+) \(user-written\)$/.exec(text);
  if (custom) return t("op.user_written", { code: custom[1] });
  return opTexts[text] || text;
}

/** Translate a key; {name} placeholders are filled from params. */
export function t(key, params = {}) {
  const text = messages[key] ?? fallback[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (m, k) => (k in params ? String(params[k]) : m));
}

/** Fill every element marked with data-i18n (text), data-i18n-title, -placeholder and -aria. */
export function applyTo(root) {
  root.querySelectorAll("[data-i18n]").forEach((el) => {
    if (el.children.length === 0) { el.textContent = t(el.dataset.i18n); return; }
    // an element with children (the Output tab's dot): replace only its own text
    const textNode = [...el.childNodes].find((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
    if (textNode) textNode.textContent = t(el.dataset.i18n);
    else el.prepend(document.createTextNode(t(el.dataset.i18n)));
  });
  root.querySelectorAll("[data-i18n-title]").forEach((el) => { el.title = t(el.dataset.i18nTitle); });
  root.querySelectorAll("[data-i18n-placeholder]").forEach((el) => { el.placeholder = t(el.dataset.i18nPlaceholder); });
  root.querySelectorAll("[data-i18n-aria]").forEach((el) => { el.setAttribute("aria-label", t(el.dataset.i18nAria)); });
}

/** t() for a template of dom.js, with each `backquoted` span of the text a <code> element (a
 * catalog text that mentions code: the code stays code in every language). */
export function tCode(key, params = {}) {
  return t(key, params).split(/(`[^`]+`)/).map((part) => {
    if (!/^`[^`]+`$/.test(part)) return part;
    const code = document.createElement("code");
    code.textContent = part.slice(1, -1);
    return code;
  });
}

/** A message the engine put in the record as {key, params} beside its English `text` (a pass's
 * note, a warning, a graph's title): worded by the catalog when it knows the key, else the English
 * text as it came. A list parameter (ids) is joined in the page's language; a parameter that is a
 * message of its own is worded too. */
export function tMessage(msg, text = "") {
  const params = messageParams(msg, (m) => tMessage(m, ""));
  return params ? t(msg.key, params) : text;
}

/** tMessage() for a template of dom.js: the parameter `quote` (another program's own words, as
 * PyTorch or TensorFlow printed them) is a <code class="quoted"> element in every language. */
export function tMessageParts(msg, text = "") {
  const params = messageParams(msg, (m) => tMessage(m, ""));
  if (!params) return [text];
  if ("quote" in params) {
    const code = document.createElement("code");
    code.className = "quoted";
    code.textContent = params.quote;
    params.quote = code;
  }
  return tParts(msg.key, params);
}

const known = (key) => typeof key === "string" && ((key in messages) || (key in fallback));

function messageParams(msg, word) {
  if (!msg || !known(msg.key)) return null;
  const params = {};
  for (const [k, v] of Object.entries(msg.params && typeof msg.params === "object" ? msg.params : {})) {
    params[k] = Array.isArray(v) ? v.join(t("list.and")) : v && typeof v === "object" ? word(v) : v;
  }
  return params;
}

/** The message of `holder`'s (the record's or a graph's) i-th warning, or null (engine/record/messages.py). */
export const warningMessage = (holder, i) => (Array.isArray(holder?.warning_messages) ? holder.warning_messages[i] || null : null);

/** t() for a template of dom.js: a list of the text's pieces, with each {name} the params' value
 * as it is (a DOM node stays a node; a string stays text). */
export function tParts(key, params = {}) {
  const text = messages[key] ?? fallback[key] ?? key;
  return text.split(/(\{\w+\})/).map((part) => {
    const m = /^\{(\w+)\}$/.exec(part);
    return m && m[1] in params ? params[m[1]] : part;
  });
}
