/* The review page: marks on the answer (select text + M, click a mark to remove it), the
   spans field the form sends, and keyboard shortcuts: C correct, H hallucinated,
   M mark the selection, N / P (or → / ←) next / previous.
   Offsets are counted in Unicode code points, as the server (Python) counts them. */
(function () {
  "use strict";
  var answer = document.getElementById("review-answer");
  var field = document.getElementById("review-spans");
  var source = document.getElementById("review-marks");
  if (!answer) return;
  var chars = Array.from(answer.getAttribute("data-text"));
  var marks = source ? JSON.parse(source.textContent).map(function (m) {
    return [m.start, m.end];
  }) : [];

  function merge(list) {
    list.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
    var out = [];
    list.forEach(function (m) {
      if (m[1] <= m[0]) return;
      var last = out[out.length - 1];
      if (last && m[0] <= last[1]) last[1] = Math.max(last[1], m[1]);
      else out.push([m[0], m[1]]);
    });
    return out;
  }

  function render() {
    marks = merge(marks);
    answer.textContent = "";
    var cursor = 0;
    marks.forEach(function (m, i) {
      if (m[0] > cursor) answer.appendChild(document.createTextNode(chars.slice(cursor, m[0]).join("")));
      var mark = document.createElement("mark");
      mark.className = "span reviewer";
      mark.tabIndex = 0;
      mark.title = "marked hallucinated: click to remove";
      mark.setAttribute("data-index", String(i));
      mark.textContent = chars.slice(m[0], m[1]).join("");
      answer.appendChild(mark);
      cursor = m[1];
    });
    if (cursor < chars.length) answer.appendChild(document.createTextNode(chars.slice(cursor).join("")));
    if (field) field.value = JSON.stringify(marks.map(function (m) { return { start: m[0], end: m[1] }; }));
  }

  function offsetOf(node, offset) {
    var range = document.createRange();
    range.selectNodeContents(answer);
    range.setEnd(node, offset);
    return Array.from(range.toString()).length;
  }

  function markSelection() {
    var sel = window.getSelection();
    if (!sel || sel.rangeCount === 0 || sel.isCollapsed) return false;
    var range = sel.getRangeAt(0);
    if (!answer.contains(range.startContainer) || !answer.contains(range.endContainer)) return false;
    var start = offsetOf(range.startContainer, range.startOffset);
    var end = offsetOf(range.endContainer, range.endOffset);
    // trim white space at either end: a mark covers words, not the gaps around them
    while (start < end && /\s/.test(chars[start])) start++;
    while (end > start && /\s/.test(chars[end - 1])) end--;
    if (end <= start) return false;
    marks.push([start, end]);
    sel.removeAllRanges();
    render();
    return true;
  }

  answer.addEventListener("click", function (event) {
    var target = event.target;
    if (target.tagName === "MARK" && window.getSelection().isCollapsed) {
      marks.splice(Number(target.getAttribute("data-index")), 1);
      render();
    }
  });
  function click(id) { var el = document.getElementById(id); if (el) el.click(); }
  var markButton = document.getElementById("mark-selection");
  if (markButton) {
    // keep the selection: a mousedown on the button would otherwise clear it first
    markButton.addEventListener("mousedown", function (e) { e.preventDefault(); });
    markButton.addEventListener("click", markSelection);
  }
  var clear = document.getElementById("clear-marks");
  if (clear) clear.addEventListener("click", function () { marks = []; render(); });

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var tag = (event.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "textarea" || tag === "select") return;
    var key = event.key.toLowerCase();
    if (key === "m") { if (markSelection()) event.preventDefault(); }
    else if (key === "c") click("label-correct");
    else if (key === "h") click("label-hallucinated");
    else if (key === "n" || key === "arrowright") click("next-item");
    else if (key === "p" || key === "arrowleft") click("prev-item");
  });
  render();
})();
