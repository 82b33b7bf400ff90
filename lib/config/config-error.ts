/**
 * xclaw.yaml or the environment is not usable. Start-up code (scripts/start.ts, the workers,
 * instrumentation.ts) prints its message alone, without a stack trace: it names what is wrong.
 */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}
