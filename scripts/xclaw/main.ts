/**
 * `xclaw <command>`: the terminal client (`npx xclaw`, bin/xclaw.mjs) and, run from a checkout with
 * `npm run xclaw -- <command>`, the place for operators' commands. One table: each command's
 * name, summary, usage and handler, loaded only when it runs (the streaming commands load the
 * `ai` package, which takes a moment). A handler returns the exit code (exit-codes.ts); an
 * AppError it throws is printed as its message, a wrong command line with its usage.
 */
import { isAppError } from "../../lib/errors";
import { UsageError } from "./command-arguments";
import { EXIT_CODES } from "./exit-codes";

export type TCommand = { name: string; summary: string; usage: string; handler: (args: string[]) => Promise<number> };

export const COMMANDS: TCommand[] = [
  {
    name: "login",
    summary: "store a server's address and your API token (Settings → API tokens)",
    usage: "xclaw login <url> [--token <token>]",
    handler: async (args) => (await import("./commands/login")).login(args),
  },
  { name: "logout", summary: "forget the stored login", usage: "xclaw logout", handler: async (args) => (await import("./commands/logout")).logout(args) },
  {
    name: "chat",
    summary: "chat in the terminal: streamed replies, tool cards, Approve / Deny",
    usage: "xclaw chat [--session <id>]",
    handler: async (args) => (await import("./commands/chat")).chat(args),
  },
  {
    name: "run",
    summary: "one prompt for scripts: the final answer on stdout, the outcome in the exit code",
    usage: 'xclaw run "<prompt>" [--session <id>] [--json]   (the prompt "-" is read from standard input)',
    handler: async (args) => (await import("./commands/run")).run(args),
  },
  { name: "sessions", summary: "your sessions, newest first", usage: "xclaw sessions [--json]", handler: async (args) => (await import("./commands/sessions")).sessions(args) },
  { name: "steps", summary: "a session's steps (its trace)", usage: "xclaw steps <session id> [--json]", handler: async (args) => (await import("./commands/steps")).steps(args) },
  { name: "jobs", summary: "your scheduled jobs", usage: "xclaw jobs [--json]", handler: async (args) => (await import("./commands/jobs")).jobs(args) },
  // Operators' commands: run on the server with the app's .env (npm run xclaw -- <command>).
  {
    name: "doctor",
    summary: "check this install: database, pgvector, migrations, providers, browser, sandbox, secrets, clock",
    usage: "npm run xclaw -- doctor [--dev]",
    handler: async (args) => (await import("./operations/doctor")).doctor(args),
  },
  { name: "backup", summary: "write one archive of the database and the data directory", usage: "npm run xclaw -- backup <file>", handler: async (args) => (await import("./operations/backup")).backup(args) },
  {
    name: "restore",
    summary: "restore an archive into the empty database DATABASE_URL names and an empty data directory",
    usage: "npm run xclaw -- restore <file>",
    handler: async (args) => (await import("./operations/restore")).restore(args),
  },
  {
    name: "create-admin",
    summary: "make an admin account and print a one-time sign-in link",
    usage: "npm run xclaw -- create-admin <email>",
    handler: async (args) => (await import("./operations/create-admin")).createAdmin(args),
  },
];

function helpText(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length));
  return [
    "Usage: xclaw <command> [arguments]   (xclaw help <command> for one command)",
    "",
    "Commands:",
    ...COMMANDS.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
    `  ${"help".padEnd(width)}  this list`,
    "",
    "XCLAW_URL and XCLAW_TOKEN in the environment override the stored login.",
    "Exit codes: 0 done, 1 failed or stopped, 2 wrong usage, 3 waits for approval, 130 Ctrl-C.",
  ].join("\n");
}

async function dispatch(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === "help" || name === "--help" || name === "-h") {
    const command = COMMANDS.find((candidate) => candidate.name === args[0]);
    process.stdout.write(`${command ? `Usage: ${command.usage}\n\n${command.summary}.` : helpText()}\n`);
    return EXIT_CODES.success;
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (!command) {
    process.stderr.write(`xclaw: unknown command "${name}".\n\n${helpText()}\n`);
    return EXIT_CODES.usage;
  }
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(`Usage: ${command.usage}\n\n${command.summary}.\n`);
    return EXIT_CODES.success;
  }
  try {
    return await command.handler(args);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`xclaw ${name}: ${error.message}\nUsage: ${command.usage}\n`);
      return EXIT_CODES.usage;
    }
    if (isAppError(error)) {
      process.stderr.write(`xclaw ${name}: ${error.message}\n`);
      return EXIT_CODES.failed;
    }
    process.stderr.write(`xclaw ${name}: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return EXIT_CODES.failed;
  }
}

/** Exits once stdout and stderr have taken everything (pipes may still be writing), whatever keeps the loop alive. */
async function exitWith(code: number): Promise<never> {
  await Promise.all([process.stdout, process.stderr].map((stream) => new Promise((resolve) => stream.write("", resolve))));
  process.exit(code);
}

void dispatch(process.argv.slice(2)).then(exitWith);
