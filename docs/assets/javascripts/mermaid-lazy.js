// Material for MkDocs renders ```mermaid blocks with a global `mermaid` when one exists (and
// fetches Mermaid from a CDN otherwise). This global is a stand-in: Mermaid itself (the local
// ES module build, whose diagram types are chunks loaded on first use) is imported only when
// Material asks it to render a diagram, so a page without diagrams loads none of it, and a
// page reached by instant navigation imports it then.
//
// The stand-in also adds theme CSS: Material's own rules predate Mermaid 12, which draws
// sequence actors and cluster boxes with inline pastel fills and unstyled text. Every color
// below is one of Material's palette variables, so the diagram follows the light or dark
// scheme (also when the reader toggles it: the variables cross the diagram's shadow root).
(function () {
  "use strict";

  var here = document.currentScript.src;
  var moduleUrl = new URL("../vendor/mermaid/mermaid.esm.min.mjs", here).href;

  var fg = "var(--md-default-fg-color)";
  var bg = "var(--md-default-bg-color)";
  var line = "var(--md-default-fg-color--light)";
  var accent = "var(--md-accent-fg-color)";
  var BOOK_CSS = [
    // Flowcharts: nodes, clusters (subgraphs), labels and edges.
    ".node rect,.node polygon,.node circle,.node ellipse,.node path{fill:var(--md-mermaid-node-bg-color)!important;stroke:" + accent + "!important}",
    ".cluster rect{fill:var(--md-default-fg-color--lightest)!important;stroke:var(--md-default-fg-color--lighter)!important}",
    ".nodeLabel,.nodeLabel p,.label,.label p,.cluster-label,.cluster-label span,.cluster-label p,.cluster span{color:" + fg + "!important}",
    ".cluster-label text,.cluster text,.flowchartTitleText,.titleText{fill:" + fg + "!important}",
    ".edgeLabel,.edgeLabel p,.labelBkg,.edgeLabel rect{background-color:" + bg + "!important;color:" + fg + "!important;fill:" + bg + "!important}",
    ".edgePath .path,.flowchart-link{stroke:" + line + "!important}",
    "marker path,marker polygon,.arrowMarkerPath,.arrowheadPath{fill:" + line + "!important;stroke:" + line + "!important}",
    // Sequence diagrams: actors, lifelines, messages; a halo keeps lifelines off the text.
    "rect.actor{fill:" + bg + "!important;stroke:" + accent + "!important}",
    "text.actor,text.actor>tspan{fill:" + fg + "!important;stroke:none!important}",
    ".actor-line,line.actor-line{stroke:var(--md-default-fg-color--lighter)!important}",
    ".messageLine0,.messageLine1{stroke:" + line + "!important}",
    ".messageText{fill:" + fg + "!important;stroke:" + bg + "!important;stroke-width:5px!important;paint-order:stroke;stroke-linejoin:round}",
    "#arrowhead path,#crosshead path,#filled-head path,#sequencenumber{fill:" + line + "!important;stroke:" + line + "!important}",
    ".note{fill:" + bg + "!important;stroke:" + line + "!important}.noteText,.noteText>tspan{fill:" + fg + "!important}",
  ].join("");

  var options = null;
  var loading = null;

  function real() {
    if (!loading) {
      loading = import(moduleUrl).then(function (module) {
        var mermaid = module.default;
        var given = options || {};
        var sequence = Object.assign({}, given.sequence, {
          wrap: true, // long messages wrap between the lifelines instead of widening the diagram
          width: 180,
          messageMargin: 42,
          mirrorActors: false,
        });
        mermaid.initialize(Object.assign({}, given, {
          startOnLoad: false,
          // Mermaid 12 would lay flowcharts out with ELK, a 1.6 MB chunk; dagre is 60 KB.
          layout: "dagre",
          themeCSS: (given.themeCSS || "") + BOOK_CSS,
          sequence: sequence,
        }));
        return mermaid;
      });
    }
    return loading;
  }

  // Mermaid scales a diagram down to the column's width, however small its text becomes. A
  // diagram may shrink to MIN_SCALE of its natural size (14 px text stays above 11 px);
  // wider than that, it keeps that size and scrolls inside its box (book.css).
  var MIN_SCALE = 0.8;

  function keepReadable(svg) {
    return svg.replace(/<svg\b[^>]*>/, function (tag) {
      var natural = /max-width:\s*([\d.]+)px/.exec(tag);
      if (!natural) {
        return tag;
      }
      var least = Math.round(parseFloat(natural[1]) * MIN_SCALE);
      return tag.replace(natural[0], natural[0] + "; min-width: " + least + "px");
    });
  }

  window.mermaid = {
    initialize: function (given) {
      options = given;
    },
    render: function (id, text) {
      return real().then(function (mermaid) {
        return mermaid.render(id, text).then(function (result) {
          result.svg = keepReadable(result.svg);
          return result;
        });
      });
    },
  };
})();
