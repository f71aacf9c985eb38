// Search results page: asks Pagefind, which loads only the index fragments a query needs.
// The header form of every page sends ?q= here. Results are built from text nodes; the
// only markup kept from an excerpt is Pagefind's <mark> around the words found. A word
// the index does not hold is corrected (one typo away) from the site's word lists, and
// the corrected queries are asked instead; results come ten at a time.
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
  var kind = document.getElementById("ra-search-kind");
  var outcome = document.getElementById("ra-search-outcome");
  var more = document.getElementById("ra-search-more");
  var typoBase = new URL(form.dataset.typos, location.href).href;
  var typoWritten = (form.dataset.typoShards || "").split(" ");
  var PAGE = 10;
  var pagefind = null, asked = 0, listing = null;

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
    var two = /^[0-9]/.test(key) ? key.slice(-2) : key.slice(0, 2);
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

  // Typos (mirrors reproaudit/site/typos.py: query_words, words_of, shards_of, within_one,
  // corrections).
  var MIN = 4, MAX = 40, PER_WORD = 3, MAX_WORDS = 3;
  function queryWords(query) {
    var words = query.split(/\s+/).filter(Boolean);
    if (words.length <= MAX_WORDS) return words;
    var keep = words.map(function (w, i) { return i; })
      .sort(function (a, b) { return words[b].length - words[a].length || a - b; }).slice(0, MAX_WORDS);
    return words.filter(function (w, i) { return keep.indexOf(i) >= 0; });
  }
  function wordsOf(text) {
    var seen = {};
    (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) || []).forEach(function (w) {
      if (w.length >= MIN && w.length <= MAX && !/^\p{N}+$/u.test(w)) seen[w] = true;
    });
    return Object.keys(seen);
  }
  function shardsOf(word) {
    var keys = [word.slice(0, 2), word.slice(1, 3), word.charAt(0) + word.slice(2, 3)], out = [];
    keys.forEach(function (k) { k = shard(k); if (out.indexOf(k) < 0) out.push(k); });
    return out.sort();
  }
  function withinOne(a, b) {
    if (a === b) return true;
    if (Math.abs(a.length - b.length) > 1) return false;
    var i = 0;
    while (i < Math.min(a.length, b.length) && a[i] === b[i]) i++;
    if (a.length === b.length) {
      if (a.slice(i + 1) === b.slice(i + 1)) return true;
      return a.slice(i, i + 2) === b.slice(i, i + 2).split("").reverse().join("") && a.slice(i + 2) === b.slice(i + 2);
    }
    if (a.length > b.length) return a.slice(i + 1) === b.slice(i);
    return a.slice(i) === b.slice(i + 1);
  }
  function corrections(word, files) {
    word = word.toLowerCase();
    if (word.length < MIN || !wordsOf(word).length) return null;
    var found = {}, names = shardsOf(word);
    for (var n = 0; n < names.length; n++) {
      var row = files[names[n]] || [];
      for (var i = 0; i < row.length; i += 2) {
        if (row[i].indexOf(word) === 0) return null;
        if (withinOne(word, row[i])) found[row[i]] = row[i + 1];
      }
    }
    return Object.keys(found).sort(function (a, b) {
      return found[b] - found[a] || (a < b ? -1 : a > b ? 1 : 0);
    }).slice(0, PER_WORD);
  }
  window.reproauditTypos = {queryWords: queryWords, wordsOf: wordsOf, shardsOf: shardsOf, withinOne: withinOne, corrections: corrections};

  var typoFiles = {};
  function typoFile(name) {
    if (typoWritten.indexOf(name) < 0) return Promise.resolve([]);
    if (!typoFiles[name]) {
      typoFiles[name] = fetch(typoBase + name + ".json").then(function (r) { return r.ok ? r.json() : []; })
        .catch(function () { return []; });
    }
    return typoFiles[name];
  }

  // Corrected queries: each word the index does not hold replaced by the indexed words one
  // typo away ({query, fixed: [[typed, corrected], ...]}), at most four; [] when none.
  function alternatives(query) {
    var words = wordsOf(query), names = [];
    words.forEach(function (w) { shardsOf(w).forEach(function (n) { if (names.indexOf(n) < 0) names.push(n); }); });
    return Promise.all(names.map(typoFile)).then(function (rows) {
      var files = {};
      names.forEach(function (n, i) { files[n] = rows[i]; });
      var terms = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) || [];
      var tries = [{terms: terms, fixed: []}];
      words.forEach(function (w) {
        var fixes = corrections(w, files);
        if (!fixes || !fixes.length) return;
        var next = [];
        tries.forEach(function (t) {
          fixes.forEach(function (f) {
            next.push({terms: t.terms.map(function (x) { return x === w ? f : x; }), fixed: t.fixed.concat([[w, f]])});
          });
        });
        tries = next.slice(0, 4);
      });
      return tries.filter(function (t) { return t.fixed.length; })
        .map(function (t) { return {query: t.terms.join(" "), fixed: t.fixed}; });
    });
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

  function filters() {
    var out = {};
    if (kind && kind.value) out.kind = kind.value;
    if (outcome && outcome.value) out.outcome = outcome.value;
    return out;
  }

  // leave: an id sent from another page's search box goes straight to its page; typed
  // here, it is listed first and the reader stays.
  function show(query, leave) {
    var mine = ++asked;
    var chosen = filters();
    if (!query && !Object.keys(chosen).length) {
      status.textContent = ""; list.textContent = ""; more.hidden = true; listing = null; return;
    }
    status.textContent = "Searching…";
    (query ? lookup(query) : Promise.resolve([])).then(function (hits) {
      if (mine !== asked) return;
      var pages = {};
      hits.forEach(function (h) { pages[h[1]] = h; });
      var urls = Object.keys(pages);
      if (urls.length === 1 && leave) { location.replace(site + urls[0]); return; }
      fullText(query, chosen, mine, Object.keys(chosen).length ? [] : urls.map(function (u) { return pages[u]; }));
    });
  }

  function loadPagefind() {
    if (pagefind) return Promise.resolve(pagefind);
    return import(bundle + "pagefind.js").then(function (m) {
      // No web worker: one script less to fetch before the first result. A word in a short
      // title (a contributor's handle) would outweigh an author's name on a paper: titles
      // weigh through their heading's weight (search_text.py) and not again as metadata.
      var ranking = {metaWeights: {title: 0}};
      return m.options({baseUrl: new URL(site).pathname, noWorker: true, ranking: ranking}).then(function () {
        pagefind = m;
        return m;
      });
    });
  }

  // Pagefind's results, after the pages an id named (when it named several), for the
  // query as typed or, when a word needed correcting, for the corrected queries in turn.
  function fullText(typed, chosen, mine, named) {
    var options = {filters: chosen};
    var query = queryWords(typed).join(" "), shortened = query !== typed.split(/\s+/).join(" ");
    Promise.all([loadPagefind(), query ? alternatives(query) : Promise.resolve([])]).then(function (got) {
      var pf = got[0], alts = got[1];
      // A word that is not indexed has no exact match (Pagefind would fall back to pages
      // holding a word it begins with, such as "f" for "ferreyar"): only corrections then.
      var asks = alts.length ? alts : [{query: query || null, fixed: []}];
      return Promise.all(asks.map(function (a) { return pf.search(a.query, options); })).then(function (founds) {
        var seen = {}, results = [], fixed = [];
        founds.forEach(function (found, i) {
          ((found && found.results) || []).forEach(function (r) {
            if (seen[r.id]) return;
            seen[r.id] = true;
            results.push(r);
            if (asks[i].fixed.length && fixed.indexOf(asks[i]) < 0) fixed.push(asks[i]);
          });
        });
        return {results: results, fixed: fixed};
      });
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
      listing = {results: res.results, shown: 0, mine: mine};
      var total = res.results.length, said = typed ? " for \u201c" + typed + "\u201d" : "";
      if (shortened) said += " (its three longest words)";
      var text = total ? total.toLocaleString("en-US") + " result" + (total === 1 ? "" : "s") + said
        : "No result" + said + ".";
      if (res.fixed.length) {
        var words = [];
        res.fixed.forEach(function (a) { a.fixed.forEach(function (f) { words.push("\u201c" + f[1] + "\u201d"); }); });
        text += ": no exact match, so results for " +
          words.filter(function (w, i) { return words.indexOf(w) === i; }).join(" or ");
      }
      return next().then(function () {
        if (mine === asked) status.textContent = text + (total ? "." : "");  // with the first ten
      });
    }).catch(function (e) { if (mine === asked) status.textContent = "Search failed to load (" + e.message + ")."; });
  }

  // The next ten results: their fragments are fetched only now.
  function next() {
    var state = listing;
    if (!state) return Promise.resolve();
    var batch = state.results.slice(state.shown, state.shown + PAGE);
    state.shown += batch.length;
    more.hidden = true;
    return Promise.all(batch.map(function (r) { return r.data(); })).then(function (data) {
      if (state !== listing) return;
      var first = null;
      data.forEach(function (d) {
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
        first = first || a;
      });
      var left = state.results.length - state.shown;
      more.hidden = left <= 0;
      more.textContent = "More results (" + left.toLocaleString("en-US") + " more)";
      return first;
    });
  }
  more.addEventListener("click", function () {
    next().then(function (first) { if (first) first.focus(); });  // keyboard readers go on from there
  });

  function remember() {
    var params = new URLSearchParams();
    var q = input.value.trim();
    if (q) params.set("q", q);
    var chosen = filters();
    Object.keys(chosen).forEach(function (k) { params.set(k, chosen[k]); });
    var text = params.toString();
    history.replaceState(null, "", location.pathname + (text ? "?" + text : ""));
    return q;
  }

  var params = new URLSearchParams(location.search);
  var query = params.get("q") || "";
  input.value = query;
  if (kind) kind.value = params.get("kind") || "";
  if (outcome) outcome.value = params.get("outcome") || "";
  show(query.trim(), !Object.keys(filters()).length);
  var timer = null;
  input.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(function () { show(remember(), false); }, 200);
  });
  [kind, outcome].forEach(function (select) {
    if (select) select.addEventListener("change", function () { show(remember(), false); });
  });
  form.addEventListener("submit", function (e) { e.preventDefault(); show(remember(), false); });
})();
