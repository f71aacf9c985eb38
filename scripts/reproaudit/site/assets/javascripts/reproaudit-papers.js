// Papers index: filter, sort and search a compact JSON index in the browser.
// Only text nodes are created from the data, so titles cannot inject markup.
(function () {
  "use strict";
  var form = document.getElementById("ra-papers-form");
  if (!form) return;
  var PAGE = 200;
  var body = document.querySelector("#ra-papers tbody");
  var count = document.getElementById("ra-count");
  var more = document.getElementById("ra-more");
  var labels = {}, rows = [], shown = [], limit = PAGE;
  var order = ["contested", "fully_reproduced", "mixed", "partial", "falsified", "toy_only",
               "inconclusive", "untested"];

  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  }

  function matches(p, q, bucket, area, spotlight) {
    if (bucket && p.bucket !== bucket) return false;
    if (area && p.area !== area) return false;
    if (spotlight && !p.spotlight) return false;
    if (!q) return true;
    for (var i = 0; i < q.length; i++) if (p.hay.indexOf(q[i]) < 0) return false;
    return true;
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
      var cell = el("td");
      var link = el("a", p.title);
      link.href = form.dataset.base + encodeURIComponent(p.id) + "/";
      cell.appendChild(link);
      tr.appendChild(cell);
      var outcome = el("td");
      outcome.appendChild(el("span", labels[p.bucket] || p.bucket, "ra-bucket ra-bucket--" + p.bucket));
      tr.appendChild(outcome);
      tr.appendChild(el("td", p.area));
      tr.appendChild(el("td", p.claims));
      tr.appendChild(el("td", p.logbooks));
      fragment.appendChild(tr);
    });
    body.appendChild(fragment);
    count.textContent = shown.length + " of " + rows.length + " papers" +
      (shown.length > limit ? " (showing " + limit + ")" : "");
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
      return {id: r[f.id], title: r[f.title], bucket: r[f.bucket], area: r[f.area],
              spotlight: r[f.spotlight] === 1, claims: r[f.claims], logbooks: r[f.logbooks],
              key: r[f.title].toLowerCase(),
              hay: (r[f.title] + " " + r[f.id] + " " + r[f.text]).toLowerCase()};
    });
    var params = new URLSearchParams(location.search);
    ["q", "bucket", "area", "sort"].forEach(function (k) { if (params.get(k)) form.elements[k].value = params.get(k); });
    if (params.get("spotlight")) form.elements.spotlight.checked = true;
    render();
  }).catch(function (e) { count.textContent = "Could not load the papers index (" + e.message + ")."; });

  form.addEventListener("input", function () { limit = PAGE; render(); });
  form.addEventListener("submit", function (e) { e.preventDefault(); });
  more.addEventListener("click", function () { limit += PAGE; render(); });
})();
