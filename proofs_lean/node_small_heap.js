// Preloaded into the WebAssembly Lean checker's Node.js processes (main thread and pthread
// workers) by proofs_lean/audit.py through NODE_OPTIONS="--require ...": V8's
// --optimize-for-size is not allowed in NODE_OPTIONS itself, so it is set here before lean.js
// loads. It lowers the checker's peak memory by about 0.6 GB (docs/decisions.md, "Lean: the
// checker's memory, lowered from outside"); the checker's own files are not changed.
require("v8").setFlagsFromString("--optimize-for-size");
