/*
 * The course's one JupyterLab extension, three plugins:
 * - opencl-c: a file ending in .cl opens in the editor as OpenCL C, highlighted with JupyterLab's
 *   own C mode. Without it CodeMirror takes .cl for Common Lisp.
 * - kernel-cells: a notebook code cell that starts with %%kernel is highlighted as OpenCL C too
 *   (its mime type set on the cell's model, and set again whenever the notebook resets it to the
 *   kernel's language); any other cell keeps the notebook's.
 * - kernel-files: an editor tab open on a .cl file follows the file on disk: when a %%kernel cell
 *   (or anything else) saved a newer text, a tab without unsaved edits reloads it and says so, and
 *   a tab with unsaved edits asks, before the learner edits text that is no longer the file's. It
 *   looks when the tab is shown and every 2 s while the page is visible.
 * And one style: text under a cell wraps at words, not inside them (JupyterLab breaks a long
 * line anywhere, so a verdict read "did not ove / rwrite it"); a word longer than the line
 * still breaks.
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

  var MIME = "text/x-opencl-csrc";
  var KERNEL_CELL = /^\s*%%kernel\b/;

  function kernelCells(notebook) {
    var seen = new WeakSet();
    function fit(cell, fallback) {
      if (!cell || !cell.model || cell.model.type !== "code") return;
      var model = cell.model;
      var want = KERNEL_CELL.test(model.sharedModel.getSource()) ? MIME : null;
      if (want && model.mimeType !== want) {
        model.mimeType = want;
      } else if (!want && model.mimeType === MIME) {
        model.mimeType = fallback();
      }
      if (!seen.has(model)) {
        seen.add(model);
        model.mimeTypeChanged.connect(function () { fit(cell, fallback); });
        model.contentChanged.connect(function () { fit(cell, fallback); });
      }
    }
    return {
      id: NAME + ":kernel-cells",
      description: "Notebook cells that start with %%kernel are highlighted as OpenCL C.",
      autoStart: true,
      requires: [notebook.INotebookTracker],
      activate: function (app, tracker) {
        function sweep(panel) {
          var content = panel.content;
          var fallback = function () { return content.codeMimetype || "text/x-ipython"; };
          content.widgets.forEach(function (cell) { fit(cell, fallback); });
        }
        tracker.widgetAdded.connect(function (_, panel) {
          panel.context.ready.then(function () { sweep(panel); });
          panel.content.modelContentChanged.connect(function () { sweep(panel); });
          panel.sessionContext.kernelChanged.connect(function () { sweep(panel); });
        });
        tracker.forEach(function (panel) { sweep(panel); });
      }
    };
  }

  function kernelFiles(apputils) {
    var Notification = apputils.Notification;
    return {
      id: NAME + ":kernel-files",
      description: "Editor tabs on .cl files follow the file when a %%kernel cell saves it.",
      autoStart: true,
      activate: function (app) {
        var asked = {};      // path -> the disk version already asked about
        function editors() {
          return Array.from(app.shell.widgets("main")).filter(function (widget) {
            return widget.context && /\.cl$/i.test(widget.context.path || "");
          });
        }
        // the contexts whose save is under way (the tab's own save is not another's), and those
        // being looked at (one look at a time per tab: a slow server overlaps no looks)
        var watched = new WeakSet(), saving = new WeakSet(), looking = new WeakSet();
        function look(widget) {
          var ctx = widget.context;
          if (!ctx || !ctx.isReady || !ctx.contentsModel || widget.isDisposed) return;
          if (!watched.has(ctx) && ctx.saveState) {
            watched.add(ctx);
            ctx.saveState.connect(function (_, state) {
              if (state === "started") saving.add(ctx); else saving.delete(ctx);
            });
          }
          if (saving.has(ctx) || looking.has(ctx)) return;
          var path = ctx.path, mine = ctx.contentsModel.last_modified;
          looking.add(ctx);
          app.serviceManager.contents.get(path, { content: false }).then(function (disk) {
            looking.delete(ctx);
            if (saving.has(ctx)) return;
            if (!disk || !disk.last_modified || !mine || widget.isDisposed) return;
            if (ctx.contentsModel.last_modified !== mine) return;   // saved or reloaded meanwhile
            if (new Date(disk.last_modified).getTime() <= new Date(mine).getTime()) return;
            if (!ctx.model.dirty) {
              ctx.revert().then(function () {
                Notification.info(path + " was saved outside this editor (by a %%kernel cell?): "
                                  + "the editor now shows the file's new text.",
                                  { autoClose: 6000 });
              });
              return;
            }
            if (asked[path] === disk.last_modified) return;
            asked[path] = disk.last_modified;
            Notification.warning(path + " was saved outside this editor (by a %%kernel cell?) "
                                 + "while this tab has unsaved edits.", {
              autoClose: false,
              actions: [
                { label: "Show the file's text", callback: function () { ctx.revert(); } },
                { label: "Keep my edits", callback: function () {} }
              ]
            });
          }, function () { looking.delete(ctx); /* the file is gone or the server is away */ });
        }
        function lookAll() {
          if (typeof document !== "undefined" && document.visibilityState === "hidden") return;
          editors().forEach(look);
        }
        app.shell.currentChanged && app.shell.currentChanged.connect(function (_, change) {
          var widget = change && change.newValue;
          if (widget && widget.context && /\.cl$/i.test(widget.context.path || "")) look(widget);
        });
        setInterval(lookAll, 2000);
      }
    };
  }

  function plugin(codemirror) {
    return {
      id: NAME + ":opencl-c",
      description: "Kernel files (.cl) open as OpenCL C, highlighted as C.",
      autoStart: true,
      requires: [codemirror.IEditorLanguageRegistry],
      activate: function (app, languages) {
        if (typeof document !== "undefined" && !document.getElementById(NAME + "-style")) {
          var style = document.createElement("style");
          style.id = NAME + "-style";
          style.textContent = ".jp-OutputArea-output pre { word-break: normal; "
                              + "overflow-wrap: anywhere; }";
          document.head.appendChild(style);
        }
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
      return Promise.all([shared("@jupyterlab/codemirror"), shared("@jupyterlab/notebook"),
                          shared("@jupyterlab/apputils")]).then(function (pkgs) {
        var exports = { __esModule: true,
                        default: [plugin(pkgs[0]), kernelCells(pkgs[1]), kernelFiles(pkgs[2])] };
        return function () { return exports; };
      });
    }
  };
})();
