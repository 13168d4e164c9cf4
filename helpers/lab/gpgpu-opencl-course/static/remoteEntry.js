/*
 * The course's one JupyterLab extension: a file ending in .cl opens in the editor as OpenCL C,
 * highlighted with JupyterLab's own C mode. Without it CodeMirror takes .cl for Common Lisp.
 *
 * Written by hand, with no build step: a federated extension is a script that registers a
 * container { init, get } under window._JUPYTERLAB[name] (webpack's module federation protocol,
 * which JupyterLab's page loader calls). init() receives the page's share scope, through which the
 * very token JupyterLab registered for its language registry is reached; get("./extension")
 * returns the plugin. A language whose `filename` pattern matches is chosen before any language
 * that only lists the extension (EditorLanguageRegistry.findByFileName), so ours wins over
 * Common Lisp's "cl". browser_tests/test_learner_path.py opens a kernel and reads the editor's
 * language from JupyterLab's status bar.
 */
var _JUPYTERLAB;
(function () {
  "use strict";
  var NAME = "gpgpu-opencl-course";
  var scope = null;

  // newest first: "4.6.6" > "4.5.0"
  function newer(a, b) {
    var x = a.split(/[.-]/), y = b.split(/[.-]/);
    for (var i = 0; i < Math.max(x.length, y.length); i++) {
      var p = parseInt(x[i] || "0", 10), q = parseInt(y[i] || "0", 10);
      if (p !== q) return (isNaN(q) ? 0 : q) - (isNaN(p) ? 0 : p);
    }
    return 0;
  }

  function shared(pkg) {
    var versions = scope && scope[pkg];
    if (!versions) return Promise.reject(new Error(NAME + ": " + pkg + " is not shared by this JupyterLab"));
    var chosen = Object.keys(versions).sort(newer)[0];
    return Promise.resolve(versions[chosen].get()).then(function (factory) { return factory(); });
  }

  function plugin(codemirror) {
    return {
      id: NAME + ":opencl-c",
      description: "Kernel files (.cl) open as OpenCL C, highlighted as C.",
      autoStart: true,
      requires: [codemirror.IEditorLanguageRegistry],
      activate: function (app, languages) {
        languages.addLanguage({
          name: "OpenCL C",
          displayName: "OpenCL C",
          mime: "text/x-opencl-csrc",
          extensions: ["cl"],
          filename: /\.cl$/i,
          load: function () {
            return languages.getLanguage("C").then(function (c) { return c.support; });
          }
        });
      }
    };
  }

  _JUPYTERLAB = _JUPYTERLAB || {};
  _JUPYTERLAB[NAME] = {
    init: function (shareScope) { scope = shareScope; },
    get: function (module) {
      if (module !== "./extension") {
        return Promise.reject(new Error(NAME + ': module "' + module + '" does not exist'));
      }
      return shared("@jupyterlab/codemirror").then(function (codemirror) {
        var exports = { __esModule: true, default: [plugin(codemirror)] };
        return function () { return exports; };
      });
    }
  };
})();
