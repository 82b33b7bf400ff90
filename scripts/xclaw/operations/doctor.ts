import path from "node:path";
import { runDoctor } from "../../../lib/operations/doctor";
import { parseCommandArguments } from "../command-arguments";
import { EXIT_CODES } from "../exit-codes";
import { loadServerEnvironment, root } from "./server-environment";

/**
 * `npm run xclaw -- doctor [--dev]`: one line per check; exits 0 on a healthy install and 1 with a
 * "problem" line for each thing to fix. The secret is checked as `npm start` needs it unless --dev.
 */
export async function doctor(args: string[]): Promise<number> {
  const { values } = parseCommandArguments(args, { dev: { type: "boolean" } }, { min: 0, max: 0 });
  let checks;
  try {
    loadServerEnvironment();
    checks = await runDoctor({ production: !values.dev, migrationsDirectory: path.join(root, "prisma", "migrations") });
  } catch (error) {
    // A configuration that does not even parse (environment, xclaw.yaml) is the one problem to report.
    const message = error instanceof Error ? error.message : String(error);
    process.stdout.write(`problem  configuration: ${message.replace(/\n\s*/g, " ")}\n`);
    return EXIT_CODES.failed;
  }
  const width = Math.max(...checks.map((check) => check.name.length));
  for (const check of checks) process.stdout.write(`${check.ok ? "ok     " : "problem"}  ${check.name.padEnd(width)}  ${check.detail}\n`);
  const problems = checks.filter((check) => !check.ok).length;
  process.stdout.write(problems ? `\n${problems} problem${problems === 1 ? "" : "s"} found.\n` : "\nAll checks passed.\n");
  return problems ? EXIT_CODES.failed : EXIT_CODES.success;
}
