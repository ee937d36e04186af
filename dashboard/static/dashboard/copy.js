// "Copy" buttons next to one-time secrets: <button data-copy="ID"> copies #ID's text.
document.addEventListener("click", function (event) {
  var button = event.target.closest("button[data-copy]");
  if (!button) return;
  var source = document.getElementById(button.getAttribute("data-copy"));
  var status = document.getElementById(button.getAttribute("data-copy") + "-status");
  function say(text) { if (status) status.textContent = text; }
  if (!source || !navigator.clipboard) { say("Select the text and copy it by hand."); return; }
  navigator.clipboard.writeText(source.textContent.trim()).then(
    function () { say("Copied."); },
    function () { say("Copying was refused; select the text and copy it by hand."); }
  );
});
