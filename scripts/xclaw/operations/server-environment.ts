import path from "node:path";
import nextEnv from "@next/env";
import { ConfigError } from "../../../lib/config/behaviour";
import { environment, resetEnvironment, type TEnvironment } from "../../../lib/config/environment";
import { AppError } from "../../../lib/errors";

/**
 * The operators' commands run on the server, beside the app, with its configuration: the same
 * .env files the launcher loads (the process's own environment wins), the same xclaw.yaml.
 */
export const root = path.resolve(import.meta.dirname, "..", "..", "..");

export function loadServerEnvironment(): TEnvironment {
  nextEnv.loadEnvConfig(root, false, { info: () => {}, error: console.error });
  resetEnvironment();
  try {
    return environment();
  } catch (error) {
    if (error instanceof ConfigError) throw new AppError("bad_request", error.message);
    throw error;
  }
}
