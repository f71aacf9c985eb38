// Search results page: asks Pagefind, which loads only the index fragments a query needs.
// The header form of every page sends ?q= here. Results are built from text nodes; the
// only markup kept from an excerpt is Pagefind's <mark> around the words found.
(function () {
  "use strict";
  var form = document.getElementById("ra-search-form");
  if (!form) return;
  var input = document.getElementById("ra-search-q");
  var status = document.getElementById("ra-search-status");
  var list = document.getElementById("ra-search-results");
  var bundle = new URL(form.dataset.bundle, location.href).href;
  var site = new URL("..", bundle).href;
  var pagefind = null, asked = 0;

  function excerpt(node, html) {
    // Pagefind escapes the page text and wraps hits in <mark>; rebuild that without innerHTML.
    var parts = html.split(/<\/?mark>/);
    parts.forEach(function (part, i) {
      var text = part.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'").replace(/&amp;/g, "&");
      node.appendChild(i % 2 ? Object.assign(document.createElement("mark"), {textContent: text})
                             : document.createTextNode(text));
    });
  }

  function show(query) {
    var mine = ++asked;
    if (!query) { status.textContent = ""; list.textContent = ""; return; }
    status.textContent = "Searching…";
    var load = pagefind ? Promise.resolve(pagefind) : import(bundle + "pagefind.js").then(function (m) {
      pagefind = m;
      return m.options({baseUrl: new URL(site).pathname}).then(function () { return m; });
    });
    load.then(function (pf) { return pf.search(query); }).then(function (found) {
      return Promise.all(found.results.slice(0, 30).map(function (r) { return r.data(); }))
        .then(function (data) { return {total: found.results.length, data: data}; });
    }).then(function (res) {
      if (mine !== asked) return;  // a newer query is on its way
      list.textContent = "";
      res.data.forEach(function (d) {
        var li = document.createElement("li");
        var a = document.createElement("a");
        a.href = d.url;
        a.textContent = (d.meta && d.meta.title) || d.url;
        li.appendChild(a);
        var p = document.createElement("p");
        p.className = "ra-note";
        excerpt(p, d.excerpt || "");
        li.appendChild(p);
        list.appendChild(li);
      });
      status.textContent = res.total ? res.total.toLocaleString("en-US") + " result" + (res.total === 1 ? "" : "s") +
        " for \u201c" + query + "\u201d" + (res.total > 30 ? " (showing 30)" : "") : "No result for \u201c" + query + "\u201d.";
    }).catch(function (e) { status.textContent = "Search failed to load (" + e.message + ")."; });
  }

  var query = new URLSearchParams(location.search).get("q") || "";
  input.value = query;
  show(query.trim());
  var timer = null;
  input.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(function () {
      var q = input.value.trim();
      history.replaceState(null, "", location.pathname + (q ? "?q=" + encodeURIComponent(q) : ""));
      show(q);
    }, 200);
  });
  form.addEventListener("submit", function (e) { e.preventDefault(); show(input.value.trim()); });
})();
