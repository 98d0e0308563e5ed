"""The HTML report's inline style sheet and filter script, kept apart from its markup.

The script only reads `data-` attributes and builds options with `new Option`, which
sets text, never markup; the report's Content Security Policy allows it by its hash.
"""

from __future__ import annotations

STYLE = """
:root { --error: #b42318; --warning: #9a6700; --notice: #0b5cad; --pass: #1a7f37;
  --line: #d0d7de; --soft: #f6f8fa; --muted: #57606a; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1200px; padding: 1.5rem; color: #1f2328;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
h1 { margin: 0 0 .25rem; font-size: 1.6rem; }
.meta { margin: 0 0 1rem; color: var(--muted); }
.counts { display: flex; flex-wrap: wrap; gap: .5rem; padding: 0; margin: 0 0 1rem;
  list-style: none; }
.counts li { padding: .3rem .7rem; border: 1px solid var(--line); border-radius: 2rem;
  background: var(--soft); }
.counts li.zero { opacity: .45; }
.counts b { color: #fff; background: var(--pass); padding: 0 .4rem; margin-right: .2rem;
  border-radius: 1rem; }
.filters { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; padding: .6rem 0;
  border-top: 1px solid var(--line); border-bottom: 1px solid var(--line);
  position: sticky; top: 0; z-index: 1; background: #fff; }
.filters select { font: inherit; padding: .15rem .3rem; }
#shown { color: var(--muted); }
[hidden] { display: none !important; }
.claim { margin: 1rem 0; padding: .8rem 1rem; border: 1px solid var(--line);
  border-left: 6px solid var(--pass); border-radius: 6px; }
.claim > header { display: flex; flex-wrap: wrap; align-items: baseline; gap: .6rem; }
.claim h2 { margin: 0; font-size: 1.05rem; font-family: ui-monospace, monospace;
  overflow-wrap: anywhere; }
.where, .url { color: var(--muted); font-size: .9rem; overflow-wrap: anywhere; }
.badge { padding: .05rem .55rem; border-radius: 1rem; color: #fff; font-weight: 600;
  font-size: .85rem; background: var(--pass); }
.level-error { border-left-color: var(--error); }
.level-warning { border-left-color: var(--warning); }
.level-notice { border-left-color: var(--notice); }
.level-error .badge, .counts .level-error b { background: var(--error); }
.level-warning .badge, .counts .level-warning b { background: var(--warning); }
.level-notice .badge, .counts .level-notice b { background: var(--notice); }
.level-acknowledged { border-left-color: var(--muted); border-left-style: dashed; }
.level-acknowledged .badge, .counts .level-acknowledged b { background: var(--muted); }
.reviewed { margin: .3rem 0; font-style: italic; }
.claim-text { margin: .4rem 0 .2rem; font-weight: 600; }
.reason { margin: .2rem 0; color: var(--muted); }
.quote, .cited, .absent { margin: .3rem 0; }
.sides { display: grid; grid-template-columns: 1fr 1fr; gap: .8rem; margin: .6rem 0; }
.sides section { padding: .5rem .7rem; background: var(--soft); border-radius: 4px;
  min-width: 0; }
.sides h3 { margin: 0 0 .3rem; font-size: .8rem; font-weight: 600; color: var(--muted); }
.sides .text { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
del { background: #ffebe9; color: #82071e; }
ins { background: #dafbe1; color: #055d20; text-decoration: none; font-weight: 600; }
.none { color: var(--muted); }
.links { margin: .3rem 0 0; font-size: .9rem; }
.says-now { margin: .6rem 0; padding: .5rem .7rem; background: var(--soft);
  border-radius: 4px; }
.says-now h3 { margin: 0 0 .3rem; font-size: .8rem; font-weight: 600; color: var(--muted); }
.says-now .text { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
mark { background: #ffebe9; color: #82071e; font-weight: 600; }
.context { color: var(--muted); }
@media (max-width: 700px) { .sides { grid-template-columns: 1fr; } }
"""

SCRIPT = """
(function () {
  "use strict";
  var claims = Array.prototype.slice.call(document.querySelectorAll("article.claim"));
  var verdict = document.getElementById("filter-verdict");
  var page = document.getElementById("filter-page");
  var shown = document.getElementById("shown");
  function distinct(key) {
    var seen = [];
    claims.forEach(function (c) {
      if (seen.indexOf(c.dataset[key]) < 0) { seen.push(c.dataset[key]); }
    });
    return seen;
  }
  distinct("verdict").forEach(function (v) { verdict.add(new Option(v, v)); });
  distinct("page").sort().forEach(function (p) { page.add(new Option(p, p)); });
  function apply() {
    var v = verdict.value, p = page.value, n = 0;
    claims.forEach(function (c) {
      var ok = (!v || c.dataset.verdict === v ||
                (v === "attention" && c.dataset.level !== "none" &&
                 c.dataset.level !== "acknowledged") ||
                (v === "acknowledged" && c.dataset.level === "acknowledged")) &&
               (!p || c.dataset.page === p);
      c.hidden = !ok;
      if (ok) { n += 1; }
    });
    shown.textContent = n + " of " + claims.length + " claims shown";
    var query = new URLSearchParams();
    if (v) { query.set("verdict", v); }
    if (p) { query.set("page", p); }
    var hash = query.toString();
    history.replaceState(null, "", hash ? "#" + hash : location.pathname + location.search);
  }
  var initial = new URLSearchParams(location.hash.slice(1));
  verdict.value = initial.get("verdict") || "";
  page.value = initial.get("page") || "";
  if (verdict.selectedIndex < 0) { verdict.value = ""; }
  if (page.selectedIndex < 0) { page.value = ""; }
  verdict.addEventListener("change", apply);
  page.addEventListener("change", apply);
  document.getElementById("filters").hidden = false;
  document.body.dataset.filters = "ready";
  apply();
})();
"""
