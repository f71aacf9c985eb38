// Papers list: filter and sort every paper in the browser, a slice at a time.
// The page already shows the first papers A to Z from static HTML (and links static lists of
// all of them), so nothing is fetched until a reader filters, sorts or asks for more. Then the
// list's JSON slices (assets/papers/1.json, 2.json..., a few hundred rows each, A to Z) are
// fetched, two at a time, and the table is redrawn as they arrive; no file holds every paper.
// Filters and sort live in the URL (?q=&bucket=&track=&rerun=&area=&review=1&sort=), so a
// filtered list can be shared. Only text nodes are created from the data.
(function () {
  "use strict";
  var form = document.getElementById("ra-papers-form");
  if (!form) return;
  var PARALLEL = 2;
  var data = form.dataset;
  var PAGE = Number(data.page);  // rows per page, as the static lists
  var total = Number(data.total), sliceCount = Number(data.slices), sliceSize = Number(data.sliceSize);
  var F = {};
  data.fields.split(" ").forEach(function (name, i) { F[name] = i; });
  var body = document.querySelector("#ra-papers tbody");
  var count = document.getElementById("ra-count");
  var more = document.getElementById("ra-more");
  var slices = [], pending = {}, inFlight = 0, failed = null;
  var limit = Number(data.first);  // the static rows: "Show more" adds a page to them
  var labels = {};
  Array.prototype.forEach.call(form.elements.bucket.options, function (o) { labels[o.value] = o.text; });
  var order = ["contested", "fully_reproduced", "mixed", "partial", "falsified", "toy_only",
               "inconclusive", "untested"];
  var KEYS = ["q", "bucket", "track", "rerun", "area", "sort"];

  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  }

  function cell(label, child) {  // label: the column, named on phones by the table's CSS
    var td = el("td");
    if (typeof child === "object") td.appendChild(child); else td.textContent = String(child);
    return td;
  }

  function values() {
    var v = {};
    KEYS.forEach(function (k) { v[k] = form.elements[k].value; });
    v.review = form.elements.review.checked;
    v.words = v.q.toLowerCase().split(/\s+/).filter(Boolean);
    return v;
  }

  // the default view (A to Z, no filter) needs only the slices that hold the rows shown
  function plain(v) {
    return !v.words.length && !v.bucket && !v.track && !v.rerun && !v.area && !v.review && v.sort === "title";
  }

  function wanted(v) {
    return plain(v) ? Math.min(sliceCount, Math.ceil(limit / sliceSize)) : sliceCount;
  }

  function matches(r, v) {
    if (v.bucket && r[F.bucket] !== v.bucket) return false;
    if (v.track && r[F.track] !== (v.track === "none" ? "" : v.track)) return false;
    if (v.rerun && (" " + r[F.rerun] + " ").indexOf(" " + v.rerun + " ") < 0) return false;
    if (v.area && r[F.area] !== v.area) return false;
    if (v.review && r[F.review] !== 1) return false;
    for (var i = 0; i < v.words.length; i++) if (r.hay.indexOf(v.words[i]) < 0) return false;
    return true;
  }

  function byDate(a, b, newest) {
    var x = a[F.updated], y = b[F.updated];
    if (x === y) return a.pos - b.pos;
    if (!x) return 1;  // never judged: last either way
    if (!y) return -1;
    return (x < y ? -1 : 1) * (newest ? -1 : 1);
  }

  function compare(sort) {
    return function (a, b) {
      if (sort === "newest" || sort === "oldest") return byDate(a, b, sort === "newest");
      if (sort === "bucket") return order.indexOf(a[F.bucket]) - order.indexOf(b[F.bucket]) || a.pos - b.pos;
      if (sort === "claims") return b[F.claims] - a[F.claims] || a.pos - b.pos;
      if (sort === "logbooks") return b[F.logbooks] - a[F.logbooks] || a.pos - b.pos;
      return a.pos - b.pos;  // the slices are A to Z, as the static lists
    };
  }

  function row(r) {
    var tr = el("tr");
    var paper = cell("Paper", "");  // as the static rows: the link, then the authors
    var link = el("a", r[F.title]);
    link.href = data.base + encodeURIComponent(r[F.id]) + "/";
    paper.appendChild(link);
    if (r[F.authors]) { paper.appendChild(el("br")); paper.appendChild(el("span", r[F.authors], "ra-note")); }
    tr.appendChild(paper);
    // drawn as the static rows are: an outcome nobody re-ran (or awaiting a re-run) is an outline
    var look = (r[F.chip] || "ra-bucket--" + r[F.bucket] + "#outcome-" + r[F.bucket]).split("#");
    var chip = el("a", r[F.outcome] || labels[r[F.bucket]] || r[F.bucket], "ra-bucket " + look[0]);
    chip.href = data.meaning + "#" + look[1];
    tr.appendChild(cell("Outcome", chip));
    tr.appendChild(cell("Area", r[F.area]));
    tr.appendChild(cell("Claims", r[F.claims].toLocaleString("en-US")));
    tr.appendChild(cell("Logbooks", r[F.logbooks].toLocaleString("en-US")));
    var when = r[F.updated] ? el("time", r[F.updated].slice(0, 10)) : "—";
    if (r[F.updated]) when.setAttribute("datetime", r[F.updated]);
    tr.appendChild(cell("Newest verdict", when));
    return tr;
  }

  function render() {
    var v = values(), need = wanted(v), have = 0, rows = [];
    for (var i = 0; i < need; i++) if (slices[i]) { have++; rows = rows.concat(slices[i]); }
    var shown = rows.filter(function (r) { return matches(r, v); }).sort(compare(v.sort));
    body.textContent = "";
    var fragment = document.createDocumentFragment();
    shown.slice(0, limit).forEach(function (r) { fragment.appendChild(row(r)); });
    if (!shown.length) {
      var td = el("td", have < need ? "Loading…" : "No papers match.");
      td.colSpan = 6;
      fragment.appendChild(el("tr")).appendChild(td);
    }
    body.appendChild(fragment);
    var n = function (x) { return x.toLocaleString("en-US"); };
    if (failed) {
      count.textContent = "Could not load the list (" + failed + "); the static lists above still reach every paper.";
    } else if (have < need) {
      count.textContent = "Loading: " + n(shown.length) + " found in the first " + n(rows.length) + " of " + n(total) + " papers…";
    } else if (plain(v)) {
      count.textContent = "The first " + n(Math.min(limit, total)) + " of " + n(total) + " papers, A to Z.";
    } else {
      count.textContent = n(shown.length) + " of " + n(total) + " papers" +
        (shown.length > limit ? " (showing " + n(limit) + ")" : "");
    }
    more.hidden = have < need || (plain(v) ? limit >= total : shown.length <= limit);
  }

  var drawing = false;
  function redraw() {  // at most one redraw per frame while slices arrive
    if (drawing) return;
    drawing = true;
    requestAnimationFrame(function () { drawing = false; render(); });
  }

  function fetchSlice(i) {
    pending[i] = true;
    inFlight++;
    fetch(data.sliceBase + (i + 1) + ".json").then(function (r) {
      if (!r.ok) throw new Error("HTTP " + r.status);
      return r.json();
    }).then(function (s) {
      slices[i] = s.rows.map(function (r, j) {
        r.pos = s.first + j;
        r.hay = (r[F.title] + " " + r[F.id] + " " + r[F.authors]).toLowerCase();
        return r;
      });
    }).catch(function (e) { failed = e.message; }).then(function () {
      inFlight--;
      pump();
      redraw();
    });
  }

  function pump() {  // fetch the slices the view needs, in order, PARALLEL at a time
    var need = wanted(values());
    for (var i = 0; i < need && inFlight < PARALLEL && !failed; i++) if (!pending[i]) fetchSlice(i);
  }

  function update() {
    pump();
    render();
  }

  function syncUrl() {
    var params = new URLSearchParams();
    KEYS.forEach(function (k) {
      var v = form.elements[k].value;
      if (v && !(k === "sort" && v === "title")) params.set(k, v);
    });
    if (form.elements.review.checked) params.set("review", "1");
    var query = params.toString();
    history.replaceState(null, "", location.pathname + (query ? "?" + query : "") + location.hash);
  }

  var params = new URLSearchParams(location.search);
  KEYS.forEach(function (k) { if (params.get(k)) form.elements[k].value = params.get(k); });
  if (params.get("review")) form.elements.review.checked = true;
  if (!plain(values())) update();  // a shared filtered list: fetch it; else the static rows stand
  else more.hidden = total <= limit;

  form.addEventListener("input", function () { limit = PAGE; update(); syncUrl(); });
  form.addEventListener("submit", function (e) { e.preventDefault(); });
  more.addEventListener("click", function () { limit += PAGE; update(); });
})();
