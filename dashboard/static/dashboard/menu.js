// Narrow screens: the sidebar's menu folds behind a "Menu" button (aria-expanded says
// whether it is open). Without JavaScript the menu simply stays open.
(function () {
  var button = document.getElementById("menu-toggle");
  var side = button && button.closest(".side");
  if (!side) return;
  side.classList.add("collapsible");
  button.hidden = false;
  button.addEventListener("click", function () {
    var open = side.classList.toggle("open");
    button.setAttribute("aria-expanded", open ? "true" : "false");
  });
})();
