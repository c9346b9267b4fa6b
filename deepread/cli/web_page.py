"""The page ``deepread serve`` serves: one HTML file with its style and script inline.

No build step and nothing fetched from elsewhere (the page must work offline): plain DOM
calls, ``fetch`` with a streamed body for the answer (JSON lines, :mod:`deepread.cli.serve`),
text always put in with ``textContent`` — documents and answers are data, never markup.
A citation ``[d:s:p]`` in the answer and each line of its citation list open the cited
page images beside the answer, the passage highlighted; the thread id is kept in the
page's address (``#thread=…``), so a reload continues the same thread.
"""

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>deepread</title>
<style>
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d232a;
 background:#f4f5f7;display:grid;height:100vh;
 grid-template-columns:280px minmax(320px,1fr) minmax(320px,48%)}
aside,main,section{overflow:auto;padding:14px 16px}
aside{background:#fff;border-right:1px solid #dde1e6}
section#viewer{background:#fff;border-left:1px solid #dde1e6}
h1{font-size:18px;margin:0 0 4px}h2{font-size:14px;margin:14px 0 6px;color:#556}
.doc{padding:6px 0;border-bottom:1px solid #eef0f2}.doc b{display:block;font-size:13.5px}
.doc small{color:#667;font-size:12px;display:block}
form{display:flex;gap:8px;position:sticky;top:0;background:#f4f5f7;padding-bottom:10px}
#question{flex:1;padding:9px 10px;font:inherit;border:1px solid #b9c0c8;border-radius:6px}
button{padding:9px 14px;font:inherit;border:0;border-radius:6px;background:#2f5fd0;color:#fff;
 cursor:pointer}
button:disabled{background:#8ea4d8;cursor:wait}
.turn{background:#fff;border:1px solid #dde1e6;border-radius:8px;padding:10px 12px;margin:0 0 12px}
.asked{font-weight:600;margin-bottom:6px}
.steps{font:12px/1.4 ui-monospace,monospace;color:#556;white-space:pre-wrap;margin:4px 0 8px;
 max-height:9em;overflow:auto;background:#f7f8fa;padding:6px;border-radius:4px}
.answer{white-space:pre-wrap}
a.cite{color:#2f5fd0;text-decoration:none;background:#eaf0fd;border-radius:3px;padding:0 2px;
 cursor:pointer}
a.cite:hover{background:#d5e1fb}
ol.citations{margin:8px 0 0;padding-left:20px;font-size:13px;color:#445}
#viewer img{width:100%;border:1px solid #ccd;margin:6px 0;box-shadow:0 1px 3px #0002}
#viewer iframe{width:100%;height:80vh;border:1px solid #ccd}
#viewer .empty{color:#889;margin-top:40px;text-align:center}
.meta{color:#667;font-size:12.5px}
.error{color:#b3261e}
</style></head>
<body>
<aside><h1>deepread</h1><div class="meta" id="collection"></div>
<h2>Library</h2><div id="library">loading…</div></aside>
<main>
<form id="ask"><input id="question" name="question" autocomplete="off"
 placeholder="Ask the library a question"><button id="ask-button" type="submit">Ask</button></form>
<div class="meta" id="thread-line"></div>
<div id="turns"></div>
</main>
<section id="viewer"><div class="empty">Click a citation to see its page,
the passage highlighted.</div></section>
<script>
"use strict";
const $ = (id) => document.getElementById(id);
let thread = (location.hash.match(/thread=([\\w-]+)/) || [])[1] || "";
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
function showThread() {
  $("thread-line").textContent = thread ? "thread " + thread : "";
  if (thread) history.replaceState(null, "", "#thread=" + thread);
}
async function loadLibrary() {
  const lib = await (await fetch("/api/library")).json();
  $("collection").textContent = "collection " + lib.collection + " · " +
    lib.documents.length + " documents";
  const box = $("library"); box.textContent = "";
  for (const d of lib.documents) {
    const row = el("div", "doc");
    row.appendChild(el("b", "", "(" + d.doc_id + ") " + d.title));
    row.appendChild(el("small", "", d.card));
    box.appendChild(row);
  }
}
const CITE = /\\[(\\d+):(\\d+):(\\d+)(?:\\s*[-–]\\s*(\\d+))?\\]/g;
function citeLink(d, s, p, label) {
  const a = el("a", "cite", label);
  a.href = "#"; a.dataset.doc = d; a.dataset.sec = s; a.dataset.para = p;
  a.addEventListener("click", (e) => { e.preventDefault(); openCitation(d, s, p); });
  return a;
}
function renderAnswer(node, text) {
  node.textContent = "";
  let last = 0;
  for (const m of text.matchAll(CITE)) {
    node.appendChild(document.createTextNode(text.slice(last, m.index)));
    node.appendChild(citeLink(m[1], m[2], m[3], m[0]));
    last = m.index + m[0].length;
  }
  node.appendChild(document.createTextNode(text.slice(last)));
}
async function openCitation(d, s, p) {
  const view = $("viewer");
  view.textContent = "";
  view.appendChild(el("div", "meta", "loading [" + d + ":" + s + ":" + p + "]…"));
  const resp = await fetch(`/api/cited/${d}/${s}/${p}`);
  const info = await resp.json();
  view.textContent = "";
  if (!resp.ok) { view.appendChild(el("div", "error", info.error)); return; }
  view.appendChild(el("h2", "", `[${d}:${s}:${p}] ${info.title}`));
  view.appendChild(el("div", "meta", info.section + (info.page ? " · p. " + info.page : "")));
  if (info.images.length) {
    let first = true;
    for (const url of info.images) {
      const img = el("img", "page");
      img.alt = "page " + url.split("/").pop().replace(".png", "") + " of " + info.title;
      img.dataset.boxes = JSON.stringify(info.boxes);
      if (first) img.addEventListener("load", () => scrollTo(view, img, info.boxes, url));
      first = false;
      img.src = url;
      img.addEventListener("error", async () => {
        const why = await fetch(url).then((r) => r.json()).catch(() => ({}));
        img.replaceWith(el("div", "error", why.error || "the page could not be drawn"));
      });
      view.appendChild(img);
    }
  } else if (info.html) {
    const frame = el("iframe"); frame.src = info.html; view.appendChild(frame);
  } else {
    view.appendChild(el("div", "error", "no place was kept for this paragraph"));
  }
}
function scrollTo(view, img, boxes, url) {
  // the passage's first rectangle on this page, in view (images are 144 dpi: 2 px a point)
  const page = Number(url.split("/").pop().replace(".png", ""));
  const box = (boxes || []).find((b) => b[0] === page);
  if (!box) return;
  const shown = img.clientHeight / img.naturalHeight;
  view.scrollTop = img.offsetTop + box[2] * 2 * shown - 120;
}
async function ask(question) {
  const turn = el("div", "turn");
  turn.appendChild(el("div", "asked", question));
  const steps = el("div", "steps"); turn.appendChild(steps);
  const answer = el("div", "answer"); turn.appendChild(answer);
  $("turns").prepend(turn);
  const resp = await fetch("/api/ask", {method: "POST",
    headers: {"Content-Type": "application/json"}, body: JSON.stringify({question, thread})});
  if (!resp.ok) {
    const why = await resp.json().catch(() => ({}));
    answer.appendChild(el("span", "error", why.error || resp.statusText)); return;
  }
  const reader = resp.body.getReader(); const decoder = new TextDecoder();
  let buffer = "", streamed = "";
  for (;;) {
    const {value, done} = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, {stream: true});
    let nl;
    while ((nl = buffer.indexOf("\\n")) >= 0) {
      const line = buffer.slice(0, nl); buffer = buffer.slice(nl + 1);
      if (!line.trim()) continue;
      const ev = JSON.parse(line);
      if (ev.type === "step") { steps.textContent += ev.text + "\\n"; steps.scrollTop = 1e9; }
      else if (ev.type === "token") { streamed += ev.text; answer.textContent = streamed; }
      else if (ev.type === "error") { answer.appendChild(el("div", "error", ev.error)); }
      else if (ev.type === "answer") {
        thread = ev.thread; showThread();
        renderAnswer(answer, ev.answer || "");
        if (ev.error) answer.appendChild(el("div", "error", ev.error));
        if (ev.citations.length) {
          const list = el("ol", "citations");
          for (const c of ev.citations) {
            const li = el("li");
            const pages = c.pages || [];
            const page = !pages.length ? "" : pages.length === 1 ? " · p. " + pages[0]
              : " · pp. " + pages[0] + "–" + pages[pages.length - 1];
            li.appendChild(citeLink(c.doc_id, c.sec_id, c.para_idx,
              `[${c.doc_id}:${c.sec_id}:${c.para_idx}]`));
            li.appendChild(document.createTextNode(" " + c.title + " › " + c.section + page));
            list.appendChild(li);
          }
          turn.appendChild(list);
        }
        turn.classList.add("answered");
      }
    }
  }
}
$("ask").addEventListener("submit", async (e) => {
  e.preventDefault();
  const q = $("question").value.trim();
  if (!q) return;
  $("ask-button").disabled = true;
  try { await ask(q); $("question").value = ""; }
  finally { $("ask-button").disabled = false; }
});
showThread();
loadLibrary();
</script></body></html>
"""
