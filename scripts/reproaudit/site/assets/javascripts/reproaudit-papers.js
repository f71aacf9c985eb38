// Papers index: filter, sort and search a compact JSON index in the browser.
// The page already lists the first papers A to Z (and links static lists of all of them),
// so this only enhances it. Filters and sort live in the URL (?q=&bucket=&area=&spotlight=1&sort=),
// so a filtered list can be shared. Only text nodes are created from the data.
(function () {
  "use strict";
  var form = document.getElementById("ra-papers-form");
  if (!form) return;
  form.hidden = false;  // shown before the first paint: the page does not jump when it loads
  var PAGE = 100;
  var body = document.querySelector("#ra-papers tbody");
  var count = document.getElementById("ra-count");
  var more = document.getElementById("ra-more");
  var labels = {}, rows = [], shown = [], limit = PAGE;
  var order = ["contested", "fully_reproduced", "mixed", "partial", "falsified", "toy_only",
               "inconclusive", "untested"];
  var KEYS = ["q", "bucket", "area", "sort"];

  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  }

  function cell(label, child) {
    var td = el("td");
    td.setAttribute("data-label", label);
    if (typeof child === "object") td.appendChild(child); else td.textContent = String(child);
    return td;
  }

  function matches(p, q, bucket, area, spotlight) {
    if (bucket && p.bucket !== bucket) return false;
    if (area && p.area !== area) return false;
    if (spotlight && !p.spotlight) return false;
    for (var i = 0; i < q.length; i++) if (p.hay.indexOf(q[i]) < 0) return false;
    return true;
  }

  function syncUrl() {
    var params = new URLSearchParams();
    KEYS.forEach(function (k) {
      var v = form.elements[k].value;
      if (v && !(k === "sort" && v === "title")) params.set(k, v);
    });
    if (form.elements.spotlight.checked) params.set("spotlight", "1");
    var query = params.toString();
    history.replaceState(null, "", location.pathname + (query ? "?" + query : "") + location.hash);
  }

  function render() {
    var q = form.elements.q.value.toLowerCase().split(/\s+/).filter(Boolean);
    var bucket = form.elements.bucket.value, area = form.elements.area.value;
    var spotlight = form.elements.spotlight.checked, sort = form.elements.sort.value;
    shown = rows.filter(function (p) { return matches(p, q, bucket, area, spotlight); });
    shown.sort(function (a, b) {
      if (sort === "bucket") return order.indexOf(a.bucket) - order.indexOf(b.bucket) || a.key.localeCompare(b.key);
      if (sort === "claims") return b.claims - a.claims || a.key.localeCompare(b.key);
      if (sort === "logbooks") return b.logbooks - a.logbooks || a.key.localeCompare(b.key);
      return a.key.localeCompare(b.key);
    });
    body.textContent = "";
    var fragment = document.createDocumentFragment();
    shown.slice(0, limit).forEach(function (p) {
      var tr = el("tr");
      var title = el("span");
      var link = el("a", p.title);
      link.href = form.dataset.base + encodeURIComponent(p.id) + "/";
      title.appendChild(link);
      if (p.authors) { title.appendChild(el("br")); title.appendChild(el("span", p.authors, "ra-note")); }
      tr.appendChild(cell("Paper", title));
      tr.appendChild(cell("Outcome", el("span", labels[p.bucket] || p.bucket, "ra-bucket ra-bucket--" + p.bucket)));
      tr.appendChild(cell("Area", p.area));
      tr.appendChild(cell("Claims", p.claims.toLocaleString("en-US")));
      tr.appendChild(cell("Logbooks", p.logbooks.toLocaleString("en-US")));
      fragment.appendChild(tr);
    });
    body.appendChild(fragment);
    count.textContent = shown.length.toLocaleString("en-US") + " of " + rows.length.toLocaleString("en-US") +
      " papers" + (shown.length > limit ? " (showing " + limit.toLocaleString("en-US") + ")" : "");
    more.hidden = shown.length <= limit;
  }

  fetch(form.dataset.index).then(function (r) {
    if (!r.ok) throw new Error(r.status);
    return r.json();
  }).then(function (index) {
    labels = index.buckets;
    var f = {};
    index.fields.forEach(function (name, i) { f[name] = i; });
    rows = index.papers.map(function (r) {
      return {id: r[f.id], title: r[f.title], authors: r[f.authors], bucket: r[f.bucket], area: r[f.area],
              spotlight: r[f.spotlight] === 1, claims: r[f.claims], logbooks: r[f.logbooks],
              key: r[f.title].toLowerCase(),
              hay: (r[f.title] + " " + r[f.id] + " " + r[f.authors] + " " + r[f.text]).toLowerCase()};
    });
    var params = new URLSearchParams(location.search);
    KEYS.forEach(function (k) { if (params.get(k)) form.elements[k].value = params.get(k); });
    if (params.get("spotlight")) form.elements.spotlight.checked = true;
    render();
  }).catch(function (e) { count.textContent = "Could not load the papers index (" + e.message + "); the lists above still reach every paper."; });

  form.addEventListener("input", function () { limit = PAGE; render(); syncUrl(); });
  form.addEventListener("submit", function (e) { e.preventDefault(); });
  more.addEventListener("click", function () { limit += PAGE; render(); });
})();
