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
  var ids = new URL(form.dataset.ids, location.href).href;
  var written = (form.dataset.shards || "").split(" ");  // lookup files that exist: no 404s
  var pagefind = null, asked = 0;

  // Ids people paste (mirrors reproaudit/site/ids.py: normalize and shard).
  function normalize(text) {
    text = text.trim();
    var m = /openreview\.net\/(?:forum|pdf)\?(?:.*&)?id=([A-Za-z0-9_-]+)/i.exec(text);
    if (m) return m[1].toLowerCase();
    m = /^(?:(?:https?:\/\/)?(?:www\.)?arxiv\.org\/(?:abs|pdf)\/|arxiv:\s*)?(\d{4}\.\d{4,5})(?:v\d+)?(?:\.pdf)?\/?$/i.exec(text);
    if (m) return m[1];
    m = /^@?([A-Za-z0-9][A-Za-z0-9._-]{1,99})$/.exec(text);
    return m ? m[1].toLowerCase() : null;
  }
  function shard(key) {
    var two = key.slice(0, 2);
    while (two.length < 2) two += "_";
    return two.replace(/[^a-z0-9]/g, "_");
  }
  window.reproauditIds = {normalize: normalize, shard: shard};

  // The pages an id leads to, or [] (a missing lookup file is no match, not an error).
  function lookup(query) {
    var key = normalize(query);
    if (!key || written.indexOf(shard(key)) < 0) return Promise.resolve([]);
    return fetch(ids + shard(key) + ".json").then(function (r) { return r.ok ? r.json() : {}; })
      .then(function (table) { return table[key] || []; }, function () { return []; });
  }

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

  // leave: an id sent from another page's search box goes straight to its page; typed
  // here, it is listed first and the reader stays.
  function show(query, leave) {
    var mine = ++asked;
    if (!query) { status.textContent = ""; list.textContent = ""; return; }
    status.textContent = "Searching…";
    lookup(query).then(function (hits) {
      if (mine !== asked) return;
      var pages = {};
      hits.forEach(function (h) { pages[h[1]] = h; });
      var urls = Object.keys(pages);
      if (urls.length === 1 && leave) { location.replace(site + urls[0]); return; }
      fullText(query, mine, urls.map(function (u) { return pages[u]; }));
    });
  }

  // Pagefind's results, after the pages an id named (when it named several).
  function fullText(query, mine, named) {
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
      named.forEach(function (h) {
        var li = document.createElement("li");
        var a = document.createElement("a");
        a.href = site + h[1];
        a.textContent = h[0];
        li.appendChild(a);
        li.appendChild(Object.assign(document.createElement("p"), {className: "ra-note", textContent: h[2]}));
        list.appendChild(li);
      });
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
  show(query.trim(), true);
  var timer = null;
  input.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(function () {
      var q = input.value.trim();
      history.replaceState(null, "", location.pathname + (q ? "?q=" + encodeURIComponent(q) : ""));
      show(q, false);
    }, 200);
  });
  form.addEventListener("submit", function (e) { e.preventDefault(); show(input.value.trim(), false); });
})();
