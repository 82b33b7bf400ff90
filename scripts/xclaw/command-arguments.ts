import { parseArgs, type ParseArgsConfig } from "node:util";
import { AppError } from "../../lib/errors";

/**
 * A command's own arguments, parsed by Node's parseArgs; a mistake is a usage error, which the
 * dispatcher (main.ts) prints with the command's usage line and exit code 2.
 */
export class UsageError extends AppError {
  constructor(message: string) {
    super("bad_request", message);
    this.name = "UsageError";
  }
}

export function parseCommandArguments<Options extends NonNullable<ParseArgsConfig["options"]>>(
  args: string[],
  options: Options,
  positionals: { min: number; max: number },
) {
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (parsed.positionals.length < positionals.min) throw new UsageError("Missing argument.");
  if (parsed.positionals.length > positionals.max) throw new UsageError(`Unexpected argument "${parsed.positionals[positionals.max]}".`);
  return parsed;
}
