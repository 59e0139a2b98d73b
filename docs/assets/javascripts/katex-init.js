// Render the math that pymdownx.arithmatex (generic mode) leaves in the page, with the local
// KaTeX. Material's `document$` emits on the first load and after every instant navigation,
// so math on pages reached without a full reload is rendered too. A LaTeX error goes to
// console.error, which the browser test treats as a failure.
(function () {
  "use strict";

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

  document$.subscribe(function () {
    renderMath(document.body);
  });
})();
