import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseDocument } from "yaml";

/**
 * Points XCLAW_CONFIG at a copy of xclaw.yaml whose `browser.allowedPrivateHosts` is `hosts`: the
 * fixture sites on 127.0.0.1 that the test's worker allow-lists too, as one xclaw.yaml does for the
 * app and its worker in production (the browser tools refuse, without a card, what the worker's
 * guard would refuse). Call it before anything reads xclaw.yaml (each test file has its own copy).
 */
export function useBrowserAllowList(hosts: string[]): string {
  const directory = mkdtempSync(path.join(os.tmpdir(), "xclaw-browser-config-"));
  const config = parseDocument(readFileSync(path.join(process.cwd(), "xclaw.yaml"), "utf8"));
  config.setIn(["browser", "allowedPrivateHosts"], hosts);
  const file = path.join(directory, "xclaw.yaml");
  writeFileSync(file, String(config));
  process.env.XCLAW_CONFIG = file;
  return file;
}
