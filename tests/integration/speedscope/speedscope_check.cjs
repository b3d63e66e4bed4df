// Loads a timeline trace into speedscope's own importer (the npm package's browser bundle, run in a
// Node.js vm context) and checks the tracks it makes: one profile per thread / stream / unit track of
// the trace, frames named after that track's slice names, and one frame per distinct (name, args),
// not one per call: speedscope keys a frame by name and args, so with slice_args = false (no
// per-call correlation id, bytes or status in the args) the repeated calls of a name merge.
//   node speedscope_check.cjs TRACE.json
// Exit codes: 0 pass, 1 fail, 77 speedscope is not installed here (npm install, tools/setup.sh).
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');

const SKIP = 77;
const fail = (msg) => {
  console.error('FAIL: ' + msg);
  process.exit(1);
};

// speedscope 1.25.0 ships only a browser bundle (dist/release/speedscope-<hash>.js), an IIFE whose
// importers are module-internal. Its entry `importProfileGroupFromText(fileName, text)` is reached
// through the lazily imported module promise the bundle keeps in a variable; the test exposes that
// variable and stops the bundle before it renders into the page.
function loadImporter() {
  const release = path.join(__dirname, 'node_modules', 'speedscope', 'dist', 'release');
  let bundle;
  try {
    bundle = fs.readdirSync(release).find((f) => /^speedscope-.*\.js$/.test(f));
  } catch (e) {
    bundle = undefined;
  }
  if (!bundle) {
    console.log(`SKIP: speedscope is not installed in ${__dirname} (run tools/setup.sh, or npm install there)`);
    process.exit(SKIP);
  }
  let src = fs.readFileSync(path.join(release, bundle), 'utf8');
  const entry = src.match(/\(await (\w+)\)\.importProfileGroupFromText/);
  const render = src.lastIndexOf('console.log(`speedscope v');
  if (!entry || render < 0) fail(`${bundle}: the importer entry or the render call was not found (another speedscope version?)`);
  src = src.slice(0, render) + `globalThis.__arunImporter=${entry[1]};return;` + src.slice(render);
  // What the bundle's module-level code touches before it renders: inert stand-ins.
  const inert = () =>
    new Proxy(function () {}, {
      get: (t, k) => (k === Symbol.toPrimitive ? () => '' : inert()),
      apply: () => inert(),
      construct: () => inert(),
    });
  const noop = () => {};
  const ctx = { console, setTimeout, clearTimeout, URL, TextDecoder, TextEncoder, Uint8Array, Promise };
  ctx.window = ctx;
  ctx.self = ctx;
  ctx.globalThis = ctx;
  ctx.document = inert();
  ctx.navigator = { userAgent: 'node', platform: 'linux' };
  ctx.location = { hash: '', search: '', href: '' };
  ctx.addEventListener = noop;
  ctx.matchMedia = () => ({ matches: false, addEventListener: noop, addListener: noop });
  vm.createContext(ctx);
  vm.runInContext(src, ctx, { filename: bundle });
  return ctx.__arunImporter;
}

// The frame speedscope makes for a trace-event slice is "name" or "name {args as JSON}".
const frameSliceName = (frame) => {
  const brace = frame.indexOf(' {');
  return brace < 0 ? frame : frame.slice(0, brace);
};

async function main() {
  const tracePath = process.argv[2];
  if (!tracePath) fail('usage: node speedscope_check.cjs TRACE.json');
  const text = fs.readFileSync(tracePath, 'utf8');
  const trace = JSON.parse(text);

  // What the trace holds: per (pid, tid) track, its complete slices' names and counts.
  const tracks = new Map();
  const threadName = new Map();
  for (const e of trace.traceEvents) {
    const key = `${e.pid}/${e.tid}`;
    if (e.ph === 'M' && e.name === 'thread_name') threadName.set(key, e.args.name);
    if (e.ph !== 'X') continue;
    if (!tracks.has(key)) tracks.set(key, { names: new Map(), keys: new Set(), calls: 0 });
    const t = tracks.get(key);
    t.names.set(e.name, (t.names.get(e.name) || 0) + 1);
    t.keys.add(e.name + ' ' + JSON.stringify(e.args || {}));
    t.calls++;
  }
  if (tracks.size === 0) fail('the trace has no slices');

  const importer = await loadImporter();
  const group = await importer.importProfileGroupFromText(path.basename(tracePath), text);
  if (!group || !group.profiles) fail('speedscope did not import the trace');

  const byName = new Map();
  for (const p of group.profiles) {
    const frames = new Set();
    p.forEachFrame((f) => frames.add(f.name));
    byName.set(p.getName(), frames);
  }
  // speedscope names a profile after the track's thread_name metadata, else "pid P, tid T".
  if (group.profiles.length !== tracks.size) {
    fail(`speedscope made ${group.profiles.length} profiles, the trace has ${tracks.size} tracks with slices: ` +
         [...byName.keys()].join(' | '));
  }
  let merged = 0;
  for (const [key, { names, keys, calls }] of tracks) {
    const [pid, tid] = key.split('/');
    const label = threadName.get(key);
    const candidates = [...byName.keys()].filter((n) =>
      (label !== undefined && n.includes(label)) || n.includes(`pid ${pid}, tid ${tid}`));
    if (candidates.length === 0) fail(`no speedscope profile for track ${key} (${label || 'unnamed'})`);
    const frames = byName.get(candidates[0]);
    const frameNames = new Set([...frames].map(frameSliceName));
    const expected = [...names.keys()].sort().join(',');
    const got = [...frameNames].sort().join(',');
    if (expected !== got) fail(`track ${label || key}: frames ${got}, slices ${expected}`);
    if (frames.size !== keys.size) {
      fail(`track ${label || key}: ${frames.size} frames for ${keys.size} distinct slices (name and args): ` +
           [...frames].slice(0, 5).join(' | '));
    }
    if (frames.size < calls) merged++;
  }
  if (merged === 0) fail('no track has fewer frames than calls: every call is its own frame');
  console.log(`speedscope: ${group.profiles.length} profiles (one per track), frames named after the slices, ` +
              `${merged} tracks with repeated calls merged into shared frames`);
}

main().catch((e) => fail(e && e.stack ? e.stack : String(e)));
