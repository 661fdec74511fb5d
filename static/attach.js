// Switchboard attachments: drag and drop and paste files onto a form with an "Attach" input
// (input[data-attach]), and a list of what is attached. The input itself works without this
// script; the server checks every file again (type from the bytes, 5 MB, 10 files).
(function () {
  "use strict";
  var maxFiles = 10, maxSize = 5 * 1024 * 1024;
  function size(n) {
    if (n < 1024) return n + " B";
    if (n < 1024 * 1024) return (n / 1024).toFixed(1) + " KB";
    return (n / 1024 / 1024).toFixed(1) + " MB";
  }
  function show(input) {
    var list = input.closest("[data-attach-field]").querySelector("[data-attach-list]");
    list.textContent = "";
    Array.prototype.forEach.call(input.files, function (f, i) {
      var li = document.createElement("li");
      var problem = i >= maxFiles ? "over the limit of 10 files" : f.size > maxSize ? "larger than 5 MB" : "";
      li.textContent = f.name + " (" + size(f.size) + ")" + (problem ? ": " + problem : "");
      if (problem) li.className = "error";
      list.appendChild(li);
    });
  }
  // add puts files after those already chosen (an input's FileList is replaced as a whole).
  function add(input, files) {
    if (!files || files.length === 0) return;
    var dt = new DataTransfer();
    Array.prototype.forEach.call(input.files, function (f) { dt.items.add(f); });
    Array.prototype.forEach.call(files, function (f) { dt.items.add(f); });
    input.files = dt.files;
    show(input);
  }
  function wire(input) {
    if (input.dataset.wired) return;
    input.dataset.wired = "1";
    var form = input.form;
    input.addEventListener("change", function () { show(input); });
    form.addEventListener("dragover", function (e) {
      if (e.dataTransfer && Array.prototype.indexOf.call(e.dataTransfer.types, "Files") >= 0) {
        e.preventDefault();
        form.classList.add("dropping");
      }
    });
    form.addEventListener("dragleave", function (e) {
      if (!form.contains(e.relatedTarget)) form.classList.remove("dropping");
    });
    form.addEventListener("drop", function (e) {
      if (!e.dataTransfer || e.dataTransfer.files.length === 0) return;
      e.preventDefault();
      form.classList.remove("dropping");
      add(input, e.dataTransfer.files);
    });
    form.addEventListener("paste", function (e) {
      var files = e.clipboardData && e.clipboardData.files;
      if (files && files.length > 0) {
        e.preventDefault();
        add(input, files);
      }
    });
  }
  function wireAll() { document.querySelectorAll("input[data-attach]").forEach(wire); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", wireAll);
  else wireAll();
})();
