#!/usr/bin/env node
/**
 * `npm run build`, after `next build`: makes .next/standalone/ a complete server and nothing more.
 * - Copies `public/` and `.next/static/` next to server.js: the standalone server serves them from
 *   its own folder, but Next.js leaves copying them to the deployment (a CDN may serve them).
 *   Without this step every page loads without its scripts and styles.
 * - Removes everything else the build put there. The server computes some paths at run time
 *   (process.cwd(), XCLAW_DATA_DIR, XCLAW_CONFIG), so the file tracing of instrumentation.ts, which
 *   outputFileTracingExcludes does not reach, copies the whole project: sources, tests, .git, and
 *   on a server the data directory (database, workspaces, secrets) and .env. The standalone server
 *   reads none of them: it gets absolute paths to xclaw.yaml, plugins/, skills/ and the data
 *   directory from the launcher (and the image).
 */
import { cp, readdir, rm, stat } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const standalone = path.join(root, ".next", "standalone");
/** What a standalone server consists of (public/ is added below). */
const STANDALONE_ENTRIES = new Set([".next", "node_modules", "package.json", "server.js"]);

function fail(message) {
  process.stderr.write(`copy-standalone-assets: ${message}\n`);
  process.exit(1);
}

async function exists(target) {
  return stat(target).then(
    () => true,
    () => false,
  );
}

if (!(await exists(path.join(standalone, "server.js")))) {
  fail(`${path.relative(root, standalone)}/server.js is missing: run \`next build\` with output: "standalone" first.`);
}

const extra = (await readdir(standalone)).filter((entry) => !STANDALONE_ENTRIES.has(entry));
for (const entry of extra) await rm(path.join(standalone, entry), { recursive: true, force: true });
if (extra.length) process.stdout.write(`copy-standalone-assets: removed what file tracing copied beyond the server: ${extra.join(", ")}\n`);

const copies = [
  { from: path.join(root, ".next", "static"), to: path.join(standalone, ".next", "static"), required: true },
  { from: path.join(root, "public"), to: path.join(standalone, "public"), required: false },
];
for (const { from, to, required } of copies) {
  if (!(await exists(from))) {
    if (required) fail(`${path.relative(root, from)} is missing: the build did not finish.`);
    continue;
  }
  // A previous build's files would otherwise stay beside the new ones.
  await rm(to, { recursive: true, force: true });
  await cp(from, to, { recursive: true });
  process.stdout.write(`copy-standalone-assets: ${path.relative(root, from)} → ${path.relative(root, to)}\n`);
}
