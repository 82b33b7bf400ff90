#!/usr/bin/env node
// Runs the real Prisma CLI. Where Prisma's native schema engine is not installed (it is downloaded
// from a host that offline machines cannot reach), it points the CLI at the WebAssembly stand-in in
// tools/prisma-schema-engine, which speaks the same protocol. On a machine with the native engine,
// or with PRISMA_SCHEMA_ENGINE_BINARY already set, nothing changes.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const env = { ...process.env };

function hasNativeEngine() {
  const dir = path.join(root, "node_modules", "@prisma", "engines");
  if (!existsSync(dir)) return false;
  return readdirSync(dir).some((file) => file.startsWith("schema-engine"));
}

if (!env.PRISMA_SCHEMA_ENGINE_BINARY && !hasNativeEngine()) {
  env.PRISMA_SCHEMA_ENGINE_BINARY = path.join(root, "tools", "prisma-schema-engine", "schema-engine.mjs");
}
env.XCLAW_PROJECT_ROOT ??= root;
env.PRISMA_HIDE_UPDATE_MESSAGE = "1";

const cli = path.join(root, "node_modules", "prisma", "build", "index.js");
const result = spawnSync(process.execPath, [cli, ...process.argv.slice(2)], { cwd: root, env, stdio: "inherit" });
process.exit(result.status ?? 1);
