// Rewrites a few lines of npm packages where they cost the services measurably, without changing
// what they do. Run by `npm install` (package.json's postinstall, also in the image build), by
// scripts/test-unit.sh and by scripts/build.sh (so by `npm start`, `npm test` and CI) before anything
// is compiled. Idempotent: a patched file is left as it is.
//
// Each patch names its package, its file and the exact text it replaces. If that text is neither
// there nor already patched (the package changed), the build stops here with an error, so an
// upgrade gets a look instead of silently losing the patch.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

// Why the ioredis patches. V8 allocates a function literal that is assigned straight to a property
// (`this.reject = (err) => ...`) in old space, as a likely method. ioredis makes such a closure in
// every Command (and again when a script command is written), and the gateway makes a Command per
// rate-limit batch. The old closure holds its young context, and through it the Command, its
// promise and its arguments, so young-generation GCs keep them all until the next full GC:
// promoted garbage, which brings the full GCs. Assigning the same arrow function through a local
// keeps it young. Measured (README, "Open-loop p99"): at 2,000 PreviewQuote/s the gateway
// promoted 18.7 to 19.4 MB in 10 s without the patch and 6.5 to 6.8 MB with it (two runs each).
//
// The same for OpenTelemetry's context: every context (`context.setValue`, `trace.setSpan`: a few
// per request and per bus message in every service) made three such closures, which kept the
// context, its map and its span through young GCs.

/** @opentelemetry/api's BaseContext constructor: its three closures through locals. */
const OTEL_CONTEXT = {
  from: `\t\tself.getValue = (key) => self._currentContext.get(key);
\t\tself.setValue = (key, value) => {
\t\t\tconst context = new BaseContext(self._currentContext);
\t\t\tcontext._currentContext.set(key, value);
\t\t\treturn context;
\t\t};
\t\tself.deleteValue = (key) => {
\t\t\tconst context = new BaseContext(self._currentContext);
\t\t\tcontext._currentContext.delete(key);
\t\t\treturn context;
\t\t};
`,
  to: `\t\t// patched by scripts/patch-deps.cjs: through locals, so V8 does not pretenure them
\t\tconst getValue = (key) => self._currentContext.get(key);
\t\tconst setValue = (key, value) => {
\t\t\tconst context = new BaseContext(self._currentContext);
\t\t\tcontext._currentContext.set(key, value);
\t\t\treturn context;
\t\t};
\t\tconst deleteValue = (key) => {
\t\t\tconst context = new BaseContext(self._currentContext);
\t\t\tcontext._currentContext.delete(key);
\t\t\treturn context;
\t\t};
\t\tself.getValue = getValue;
\t\tself.setValue = setValue;
\t\tself.deleteValue = deleteValue;
`,
};

// Why the zod patch. V8 decides per object-literal site whether to allocate that site's objects in
// old space (allocation-site pretenuring): a site whose objects nearly all survive a young GC is
// "tenured" for the rest of the process. While a service starts, nearly everything survives, so
// sites run then get tenured, and zod's pipe (every `.transform()` is one) made its next payload
// with an object literal, `{ value, issues }`, in `handlePipeResult`: once tenured, every parse of
// every request allocated those payloads in old space, where they died. At 1,475 PreviewQuote/s the
// gateway's old generation grew by 18.4 to 18.9 MB in 20 s, which brought a full GC every 8 s; with
// the payload made by a class (V8 keeps no allocation site for `new`), 1.9 MB (`npm run
// bench:promotion`; README, "Open-loop p99").

/** zod's handlePipeResult: its payload from a class, not a literal. */
const ZOD_PIPE = {
  from: `    return next._zod.run({ value: left.value, issues: left.issues }, ctx);
}
`,
  to: `    // patched by scripts/patch-deps.cjs: made by a class, so V8 never pretenures it
    return next._zod.run(new PipePayload(left.value, left.issues), ctx);
}
class PipePayload {
    constructor(value, issues) {
        this.value = value;
        this.issues = issues;
    }
}
`,
};

const PATCHES = [
  {
    pkg: 'ioredis',
    file: 'built/Command.js',
    from: `            this.resolve = this._convertValue(resolve);
            this.reject = (err) => {
                this._clearTimers();
                if (this.errorStack) {
                    reject((0, utils_1.optimizeErrorStack)(err, this.errorStack.stack, __dirname));
                }
                else {
                    reject(err);
                }
            };
`,
    to: `            this.resolve = this._convertValue(resolve);
            // patched by scripts/patch-deps.cjs: through a local, so V8 does not pretenure it
            const rejectCommand = (err) => {
                this._clearTimers();
                if (this.errorStack) {
                    reject((0, utils_1.optimizeErrorStack)(err, this.errorStack.stack, __dirname));
                }
                else {
                    reject(err);
                }
            };
            this.reject = rejectCommand;
`,
  },
  {
    pkg: 'ioredis',
    file: 'built/Script.js',
    from: `                const origReject = this.reject;
                this.reject = (err) => {
                    if (err.message.indexOf("NOSCRIPT") !== -1) {
                        socketHasScriptLoaded.delete(socket);
                    }
                    origReject.call(this, err);
                };
`,
    to: `                const origReject = this.reject;
                // patched by scripts/patch-deps.cjs: through a local, so V8 does not pretenure it
                const rejectScript = (err) => {
                    if (err.message.indexOf("NOSCRIPT") !== -1) {
                        socketHasScriptLoaded.delete(socket);
                    }
                    origReject.call(this, err);
                };
                this.reject = rejectScript;
`,
  },
  // The CommonJS and the ES module build of the same file, with the same text.
  { pkg: '@opentelemetry/api', file: 'dist/context/context.cjs', ...OTEL_CONTEXT },
  { pkg: '@opentelemetry/api', file: 'dist/context/context.mjs', ...OTEL_CONTEXT },
  { pkg: 'zod', file: 'v4/core/schemas.cjs', ...ZOD_PIPE },
  { pkg: 'zod', file: 'v4/core/schemas.js', ...ZOD_PIPE },
];

/** Applies one patch under `nodeModules`: 'applied', or 'already' when the file has it. Throws if neither text is there. */
function applyPatch(nodeModules, patch) {
  const file = path.join(nodeModules, patch.pkg, patch.file);
  const text = fs.readFileSync(file, 'utf8');
  if (text.includes(patch.to)) return 'already';
  const at = text.indexOf(patch.from);
  if (at < 0 || text.indexOf(patch.from, at + 1) >= 0) {
    let version = 'unknown';
    try {
      version = JSON.parse(fs.readFileSync(path.join(nodeModules, patch.pkg, 'package.json'), 'utf8')).version;
    } catch {
      // the version is only for the message
    }
    throw new Error(
      `patch-deps: ${patch.pkg} ${version}, ${patch.file}: the text to patch is not there exactly once (the package changed?). ` +
        'Review the patch in scripts/patch-deps.cjs against the new code, and update or drop it.',
    );
  }
  fs.writeFileSync(file, text.slice(0, at) + patch.to + text.slice(at + patch.from.length));
  return 'applied';
}

function main() {
  const nodeModules = path.join(__dirname, '..', 'node_modules');
  for (const patch of PATCHES) {
    if (applyPatch(nodeModules, patch) === 'applied') console.log(`[patch-deps] patched ${patch.pkg}/${patch.file}`);
  }
}

module.exports = { PATCHES, applyPatch };

if (require.main === module) {
  try {
    main();
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  }
}
