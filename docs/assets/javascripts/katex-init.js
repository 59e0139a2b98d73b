// Render the math that pymdownx.arithmatex (generic mode) leaves in the page, with the local
// KaTeX. KaTeX (script, stylesheet, and the fonts the stylesheet names) is loaded only when a
// page has math: a page without any loads none of it. Material's `document$` emits on the
// first load and after every instant navigation, so math on pages reached without a full
// reload is rendered too (loading KaTeX then, if it was not loaded yet). A LaTeX error goes to
// console.error, which the browser test treats as a failure.
(function () {
  "use strict";

  var here = document.currentScript.src;
  var vendor = function (path) {
    return new URL("../vendor/katex/" + path, here).href;
  };
  var loading = null;

  function script(src) {
    return new Promise(function (resolve, reject) {
      var element = document.createElement("script");
      element.src = src;
      element.onload = resolve;
      element.onerror = function () {
        reject(new Error("could not load " + src));
      };
      document.head.appendChild(element);
    });
  }

  function loadKatex() {
    if (!loading) {
      var css = document.createElement("link");
      css.rel = "stylesheet";
      css.href = vendor("katex.min.css");
      document.head.appendChild(css);
      var styled = new Promise(function (resolve) {
        css.onload = resolve;
        css.onerror = resolve;
      });
      loading = script(vendor("katex.min.js"))
        .then(function () {
          return script(vendor("contrib/auto-render.min.js"));
        })
        .then(function () {
          return styled;
        });
    }
    return loading;
  }

  function reportError(message, error) {
    console.error("KaTeX: " + message + (error && error.message ? " " + error.message : ""));
  }

  function renderMath(root) {
    root.querySelectorAll(".arithmatex").forEach(function (element) {
      if (element.querySelector(".katex")) {
        return; // already rendered (document$ can emit for the same body)
      }
      renderMathInElement(element, {
        delimiters: [
          { left: "\\[", right: "\\]", display: true },
          { left: "\\(", right: "\\)", display: false },
        ],
        throwOnError: true,
        errorCallback: reportError,
      });
      if (!element.querySelector(".katex")) {
        // auto-render skips a formula whose braces do not balance; render it directly so
        // that KaTeX says what is wrong.
        var source = element.textContent.trim();
        var delimited = source.match(/^\\[([]([\s\S]*)\\[)\]]$/);
        var tex = delimited ? delimited[1] : source;
        try {
          katex.render(tex, element, {
            displayMode: element.tagName === "DIV",
            throwOnError: true,
          });
        } catch (error) {
          reportError("could not render " + JSON.stringify(tex.slice(0, 120)) + ":", error);
        }
      }
    });
  }

  // Inline math never wraps (book.css); a formula wider than its line's box (a long one on
  // a phone) becomes a box of its own that scrolls sideways, instead of widening the page.
  function markWide(root) {
    root.querySelectorAll("span.arithmatex").forEach(function (element) {
      var box = element.parentElement;
      while (box && getComputedStyle(box).display.indexOf("inline") === 0) {
        box = box.parentElement;
      }
      element.classList.remove("bk-wide-math");
      if (box && element.getBoundingClientRect().width > box.clientWidth) {
        element.classList.add("bk-wide-math");
      }
    });
  }

  // Widths change when the window does, and when KaTeX's fonts arrive after the first layout.
  var resizing = null;
  function markWideSoon() {
    clearTimeout(resizing);
    resizing = setTimeout(function () {
      markWide(document.body);
    }, 100);
  }
  window.addEventListener("resize", markWideSoon);
  if (document.fonts) {
    document.fonts.addEventListener("loadingdone", markWideSoon);
  }

  document$.subscribe(function () {
    if (!document.querySelector(".arithmatex")) {
      return;
    }
    loadKatex().then(
      function () {
        renderMath(document.body);
        markWide(document.body);
        if (document.fonts) {
          document.fonts.ready.then(function () {
            markWide(document.body);
          });
        }
      },
      function (error) {
        reportError("", error);
      }
    );
  });
})();
