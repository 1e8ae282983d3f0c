// Small fixes loaded on every page of the book (see _config.yml, html_js_files).
(function () {
  "use strict";
  var root = (document.documentElement.dataset.content_root || "./");

  // The widget manager (@jupyter-widgets/html-manager 1.x) loads its icon fonts from its module's path, which
  // RequireJS resolves relative to the page ("<page folder>/@jupyter-widgets/html-manager/dist/"). Point that
  // path at the shipped copy: a global `require` object defined before require.js loads is its configuration
  // (this file is loaded first, see _config.yml).
  if (typeof window.require === "undefined") {
    window.require = {paths: {"@jupyter-widgets/html-manager/dist": root + "_static/widgets"}};
  }

  // The widget manager typesets labels with the MathJax 2 API (MathJax.Hub.Queue); the book ships MathJax 3.
  function mathjaxBridge() {
    var mj = window.MathJax;
    if (!mj || mj.Hub || typeof mj.typesetPromise !== "function") return;
    mj.Hub = {
      Queue: function () {
        var elements = [];
        for (var i = 0; i < arguments.length; i++) {
          var job = arguments[i];
          if (Array.isArray(job) && job[2] && job[2].nodeType === 1) elements.push(job[2]);
        }
        var ready = (mj.startup && mj.startup.promise) || Promise.resolve();
        ready.then(function () { return mj.typesetPromise(elements.length ? elements : undefined); });
      }
    };
  }
  mathjaxBridge();
  document.addEventListener("DOMContentLoaded", mathjaxBridge);
})();
