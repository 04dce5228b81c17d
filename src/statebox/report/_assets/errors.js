// Loaded first: records every script error and console.error so the page can show them
// (and a headless browser test can read them from the DOM).
window.__reportErrors = [];
function __noteReportError(text) {
  window.__reportErrors.push(text);
  if (window.__syncReportErrors) { window.__syncReportErrors(); }
}
window.addEventListener("error", function (e) {
  __noteReportError("error: " + (e.message || String(e)));
});
window.addEventListener("unhandledrejection", function (e) {
  __noteReportError("unhandled rejection: " + String(e.reason));
});
(function () {
  var original = console.error;
  console.error = function () {
    __noteReportError("console.error: " + Array.prototype.join.call(arguments, " "));
    return original.apply(console, arguments);
  };
})();
