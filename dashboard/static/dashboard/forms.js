// Form behaviour without inline handlers (the Content-Security-Policy allows no inline script):
// a form with data-confirm="question" asks before it is sent, and a control with
// data-autosubmit sends its form when it changes (the tenant switcher).
(function () {
  document.addEventListener("submit", function (event) {
    var form = event.target;
    var question = form.getAttribute && form.getAttribute("data-confirm");
    if (question && !window.confirm(question)) event.preventDefault();
  });
  document.addEventListener("change", function (event) {
    var control = event.target;
    if (control.hasAttribute && control.hasAttribute("data-autosubmit") && control.form) {
      control.form.requestSubmit ? control.form.requestSubmit() : control.form.submit();
    }
  });
})();
