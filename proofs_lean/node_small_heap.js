// Preloaded into the WebAssembly Lean checker's Node.js processes (main thread and pthread
// workers) by proofs_lean/audit.py through NODE_OPTIONS="--require ...". Two memory settings;
// the checker's own files are not changed (docs/decisions.md, "Lean: the checker's memory,
// lowered from outside" and "Lean: pthread workers on demand").
//
// 1. V8's --optimize-for-size, which NODE_OPTIONS itself does not allow: about 0.6 GB lower.
require("v8").setFlagsFromString("--optimize-for-size");

// 2. No idle pthread pool. The checker's Emscripten runtime starts four pthread workers before
// Lean runs (`var pthreadPoolSize=4;` in lean.js); each is a Node worker, a JavaScript isolate
// that loads all of lean.js again (about 0.2 GB each), whether Lean ever runs a thread on it or
// not. With a pool of size 0 the same runtime starts a worker when Lean spawns a thread
// (PThread.getNewWorker), so only the threads Lean really runs cost memory. lean.js is
// rewritten as it is compiled, in memory; if the text is not found (another lean.js), the
// checker runs unchanged and this says so on stderr.
const Module = require("module");
const path = require("path");
const POOL = "var pthreadPoolSize=4;";
const compile = Module.prototype._compile;
Module.prototype._compile = function (content, filename) {
  if (path.basename(filename) === "lean.js" && require("worker_threads").isMainThread) {
    const at = content.indexOf(POOL);
    if (at >= 0 && content.indexOf(POOL, at + 1) < 0) {
      content = content.slice(0, at) + "var pthreadPoolSize=0;" + content.slice(at + POOL.length);
    } else {
      process.stderr.write("node_small_heap.js: lean.js has no single `" + POOL +
        "`; the pthread pool is left as it is\n");
    }
  }
  return compile.call(this, content, filename);
};
