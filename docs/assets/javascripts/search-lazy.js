// Material for MkDocs fetches search/search_index.json as soon as a page loads; on this site
// it is the largest file (more than half a megabyte). This script, loaded before Material's,
// holds that one request back until the reader reaches for search: focusing or clicking the
// search field, or pressing one of Material's search shortcuts (/, s, f). Search then works
// as before; "Initializing search" shows while the index arrives. A page opened from a
// search result (`?q=`) or with `?h=` highlighting fetches it at once.
(function () {
  "use strict";

  var INDEX = /\/search\/search_index\.json$/;
  var wanted = /[?&](q|h)=/.test(location.search);
  var waiting = [];

  function want() {
    if (wanted) {
      return;
    }
    wanted = true;
    waiting.splice(0).forEach(function (send) {
      send();
    });
  }

  var open = XMLHttpRequest.prototype.open;
  var send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.open = function (method, url) {
    this.__bookSearchIndex = INDEX.test(String(url).split(/[?#]/)[0]);
    return open.apply(this, arguments);
  };
  XMLHttpRequest.prototype.send = function () {
    var request = this;
    var args = arguments;
    if (request.__bookSearchIndex && !wanted) {
      waiting.push(function () {
        send.apply(request, args);
      });
      return undefined;
    }
    return send.apply(request, args);
  };

  function inSearch(target) {
    return target && target.closest && target.closest(".md-search, label[for='__search']");
  }
  document.addEventListener("focusin", function (event) {
    if (inSearch(event.target)) want();
  }, true);
  document.addEventListener("pointerdown", function (event) {
    if (inSearch(event.target)) want();
  }, true);
  document.addEventListener("keydown", function (event) {
    if (["/", "s", "S", "f", "F"].indexOf(event.key) >= 0) want();
  }, true);
  document.addEventListener("change", function (event) {
    if (event.target && event.target.id === "__search") want();
  }, true);
})();
