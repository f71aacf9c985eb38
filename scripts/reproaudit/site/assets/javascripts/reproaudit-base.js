// The theme's storage helpers, which its bundle and its palette script call, in one file that
// every page shares instead of inline in each. Values are JSON under "<site path>.<key>", so
// the palette chosen on one page holds on every page of the site (and only this site).
// The site's root is found from this file's own address: <root>assets/javascripts/.
var __md_scope = new URL("../..", document.currentScript.src);

function __md_hash(text) {
  return Array.from(text).reduce(function (hash, ch) { return (hash << 5) - hash + ch.charCodeAt(0); }, 0);
}

function __md_get(key, storage = localStorage, scope = __md_scope) {
  return JSON.parse(storage.getItem(scope.pathname + "." + key));
}

function __md_set(key, value, storage = localStorage, scope = __md_scope) {
  try {
    storage.setItem(scope.pathname + "." + key, JSON.stringify(value));
  } catch (e) {
    // storage full or refused (private mode): the choice lasts for this page only
  }
}
