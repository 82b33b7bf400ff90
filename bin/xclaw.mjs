#!/usr/bin/env node
// `npx xclaw`: the terminal client (scripts/xclaw/main.ts). tsx, already a dependency, compiles the
// TypeScript as it loads, so there is no build step; it runs in this process, so Ctrl-C reaches
// the client itself. The repository's tsconfig is named so that a tsconfig.json in the directory
// the command is run from changes nothing.
import { fileURLToPath } from "node:url";
import { register } from "tsx/esm/api";

register({ tsconfig: fileURLToPath(new URL("../tsconfig.json", import.meta.url)) });
await import("../scripts/xclaw/main.ts");
