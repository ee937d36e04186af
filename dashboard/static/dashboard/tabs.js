// Tabs (WAI-ARIA): <div data-tabs> holding role="tab" buttons (aria-controls) and
// role="tabpanel" panels. Without JavaScript every panel stays visible.
document.querySelectorAll("[data-tabs]").forEach(function (group) {
  var tabs = Array.prototype.slice.call(group.querySelectorAll('[role="tab"]'));
  function select(tab, focus) {
    tabs.forEach(function (other) {
      var on = other === tab;
      other.setAttribute("aria-selected", on ? "true" : "false");
      other.tabIndex = on ? 0 : -1;
      var panel = document.getElementById(other.getAttribute("aria-controls"));
      if (panel) panel.hidden = !on;
    });
    if (focus) tab.focus();
  }
  tabs.forEach(function (tab, i) {
    tab.addEventListener("click", function () { select(tab, false); });
    tab.addEventListener("keydown", function (event) {
      var step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
      if (step) { event.preventDefault(); select(tabs[(i + step + tabs.length) % tabs.length], true); }
    });
  });
  if (tabs.length) select(tabs[0], false);
});
