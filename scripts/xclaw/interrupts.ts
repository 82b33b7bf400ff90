import { EXIT_CODES } from "./exit-codes";

/**
 * Ctrl-C for the interactive commands: whatever is going on decides what it means (stop the run
 * being followed, leave an approval waiting), and with nothing going on it quits. It arrives as
 * SIGINT from a pipe or a shell's `kill -INT`, and from readline when a terminal is in raw mode;
 * both come here.
 */
type THandler = () => void;

const handlers: THandler[] = [];
let installed = false;

export function exitInterrupted(): never {
  process.stderr.write("\n");
  process.exit(EXIT_CODES.interrupted);
}

export function dispatchInterrupt(): void {
  const handler = handlers.at(-1);
  if (handler) handler();
  else exitInterrupted();
}

export function installInterrupts(): void {
  if (installed) return;
  installed = true;
  process.on("SIGINT", dispatchInterrupt);
}

/** Runs `work` with `handler` answering Ctrl-C, then gives Ctrl-C back to whoever had it. */
export async function whileInterruptible<T>(handler: THandler, work: () => Promise<T>): Promise<T> {
  handlers.push(handler);
  try {
    return await work();
  } finally {
    handlers.splice(handlers.lastIndexOf(handler), 1);
  }
}
