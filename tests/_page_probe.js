// Measurements of one loaded page, evaluated by tests/test_browser.py (an async arrow function).
// Returns what a reader would meet: diagram text contrast and size, Chinese text drawn as boxes,
// code blocks and tables that scroll sideways, inline math that wraps, copy buttons over code.
async () => {
  const parse = (text) => {
    const m = /rgba?\(([^)]+)\)/.exec(text || "");
    if (!m) return null;
    const parts = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return [parts[0], parts[1], parts[2], parts.length > 3 ? parts[3] : 1];
  };
  const over = (top, bottom) => {
    const a = top[3];
    return [0, 1, 2].map((i) => top[i] * a + bottom[i] * (1 - a)).concat([1]);
  };
  const luminance = (c) => {
    const [r, g, b] = c.slice(0, 3).map((v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const contrast = (a, b) => {
    const [l1, l2] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (l1 + 0.05) / (l2 + 0.05);
  };
  const pageBackground = parse(getComputedStyle(document.body).backgroundColor) || [255, 255, 255, 1];
  const SHAPES = new Set(["rect", "path", "polygon", "circle", "ellipse"]);

  // --- Diagrams: every label's contrast with what is drawn behind it, and its size on screen.
  const diagrams = [];
  document.querySelectorAll("div.mermaid").forEach((host, index) => {
    const root = host.shadowRoot;
    const svg = root && root.querySelector("svg");
    if (!svg) return;
    const box = svg.getBoundingClientRect();
    const viewBox = svg.viewBox && svg.viewBox.baseVal;
    const scale = viewBox && viewBox.width ? box.width / viewBox.width : 1;
    const labels = [];
    const textElements = [...svg.querySelectorAll("text")].filter((t) => t.textContent.trim());
    const htmlElements = [...svg.querySelectorAll("foreignObject *")].filter((e) =>
      [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()));
    for (const element of [...textElements, ...htmlElements]) {
      const rect = element.getBoundingClientRect();
      if (rect.width === 0 || rect.height === 0) continue;
      const style = getComputedStyle(element);
      const isSvgText = element instanceof SVGElement;
      let color = parse(isSvgText ? style.fill : style.color);
      if (!color) continue;
      const x = rect.left + rect.width / 2, y = rect.top + rect.height / 2;
      const layers = [];
      for (const behind of root.elementsFromPoint(x, y)) {
        if (behind === element || element.contains(behind) || behind.contains(element) && !(behind instanceof HTMLElement)) continue;
        const s = getComputedStyle(behind);
        let fill = null;
        if (behind instanceof SVGElement) {
          if (SHAPES.has(behind.tagName) && s.fill !== "none") fill = parse(s.fill);
          if (fill) fill[3] *= Number(s.fillOpacity || 1);
        } else {
          fill = parse(s.backgroundColor);
        }
        if (fill && fill[3] > 0) {
          layers.push(fill);
          if (fill[3] >= 1) break;
        }
      }
      let background = pageBackground;
      for (const layer of layers.reverse()) background = over(layer, background);
      color = over(color, background);
      labels.push({
        text: element.textContent.trim().slice(0, 60),
        contrast: Math.round(contrast(color, background) * 100) / 100,
        px: Math.round(parseFloat(style.fontSize) * scale * 10) / 10,
      });
    }
    diagrams.push({
      index, width: Math.round(box.width), height: Math.round(box.height), labels,
      kind: svg.getAttribute("aria-roledescription") || "",
    });
  });

  // --- Chinese text: a character drawn like a code point no font has is drawn as a box.
  const cjk = /[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]/u;
  const boxes = [];
  let cjkCharacters = 0;
  const walker = document.createTreeWalker(document.querySelector("article") || document.body, NodeFilter.SHOW_TEXT);
  const seen = new Map();
  while (walker.nextNode()) {
    const node = walker.currentNode;
    if (!cjk.test(node.textContent)) continue;
    const style = getComputedStyle(node.parentElement);
    const font = `${style.fontStyle} ${style.fontWeight} 40px ${style.fontFamily}`;
    for (const ch of node.textContent) if (cjk.test(ch)) seen.set(ch + "\u0000" + font, [ch, font]);
  }
  if (seen.size) {
    const canvas = document.createElement("canvas");
    canvas.width = 48; canvas.height = 48;
    const ctx = canvas.getContext("2d", { willReadFrequently: true });
    const draw = (ch, font) => {
      ctx.clearRect(0, 0, 48, 48);
      ctx.font = font;
      ctx.fillStyle = "#000";
      ctx.textBaseline = "top";
      ctx.fillText(ch, 2, 2);
      return ctx.getImageData(0, 0, 48, 48).data.join(",");
    };
    for (const [ch, font] of seen.values()) {
      await document.fonts.load(font, ch);
      cjkCharacters += 1;
      if (draw(ch, font) === draw("\u{10FFFD}", font)) boxes.push(ch);
    }
  }

  // --- Sideways scrolling: code blocks and tables whose content is wider than their box.
  const where = (element) => {
    let heading = null;
    for (let e = element; e && !heading; e = e.previousElementSibling || e.parentElement) {
      if (/^H[1-6]$/.test(e.tagName) && e.id) heading = e.id;
    }
    return heading || "top";
  };
  const scrollingCode = [];
  document.querySelectorAll("article pre > code").forEach((code) => {
    if (code.closest(".mermaid")) return;
    if (code.scrollWidth > code.clientWidth + 1) {
      const first = (code.textContent.split("\n").find((l) => l.trim()) || "").trim().slice(0, 70);
      scrollingCode.push({ at: where(code.closest("pre")), first, overflow: code.scrollWidth - code.clientWidth });
    }
  });
  const scrollingTables = [];
  document.querySelectorAll("article table").forEach((table) => {
    if (table.closest(".highlighttable") || table.classList.contains("highlighttable")) return;
    const wrap = table.closest(".md-typeset__scrollwrap") || table;
    const over = Math.max(table.scrollWidth - table.clientWidth, wrap.scrollWidth - wrap.clientWidth);
    if (over > 1) {
      const head = [...table.querySelectorAll("th")].map((th) => th.textContent.trim()).join(" | ").slice(0, 70);
      scrollingTables.push({ at: where(wrap), head, overflow: over, width: table.scrollWidth });
    }
  });

  // --- Inline math that breaks across lines; copy buttons over the first line of code.
  const wrappedMath = [];
  document.querySelectorAll("article span.arithmatex .katex").forEach((k) => {
    const tops = new Set([...k.querySelectorAll(".base")].map((b) => Math.round(b.getBoundingClientRect().top)));
    if (tops.size > 1) wrappedMath.push(k.querySelector("annotation")?.textContent.slice(0, 60) || "?");
  });
  const coveredCode = [];
  document.querySelectorAll("article pre > code").forEach((code) => {
    const button = code.parentElement.querySelector(".md-code__nav, .md-clipboard");
    if (!button) return;
    const b = button.getBoundingClientRect();
    const range = document.createRange();
    range.selectNodeContents(code);
    const line = [...range.getClientRects()].find((r) => r.width > 0);
    if (!line) return;
    const firstLineBottom = line.top + line.height;
    const textRight = Math.min(code.getBoundingClientRect().right, code.getBoundingClientRect().left + code.scrollWidth);
    const firstText = (code.textContent.split("\n")[0] || "");
    // The button covers code when it overlaps the first line's band and the line reaches under it.
    const lineRects = [...range.getClientRects()].filter((r) => Math.abs(r.top - line.top) < 2);
    const reach = Math.max(...lineRects.map((r) => r.right));
    if (b.bottom > line.top && b.top < firstLineBottom && reach > b.left && firstText.trim()) {
      coveredCode.push({ at: where(code.closest("pre")), first: firstText.trim().slice(0, 50), textRight });
    }
  });
  const article = document.querySelector("article");
  return {
    diagrams, cjkCharacters, boxes, scrollingCode, scrollingTables, wrappedMath, coveredCode,
    pageOverflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    columnWidth: article ? Math.round(article.getBoundingClientRect().width) : 0,
  };
}
