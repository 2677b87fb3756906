// Copy buttons: <button data-copy="ID"> copies the value of the input #ID. The one script of
// the console, loaded as a file (the CSP refuses inline script); pages work without it.
document.addEventListener("click", function (e) {
  var b = e.target.closest("button[data-copy]");
  if (!b) return;
  var id = b.getAttribute("data-copy");
  var input = document.getElementById(id);
  var status = document.querySelector('[data-copied-for="' + id + '"]');
  var say = function (text) { if (status) status.textContent = text; };
  input.select();
  if (navigator.clipboard && navigator.clipboard.writeText) {
    navigator.clipboard.writeText(input.value).then(function () { say("Copied."); },
      function () { say("Select the text and copy it with your keyboard."); });
  } else {
    say("Select the text and copy it with your keyboard.");
  }
});
