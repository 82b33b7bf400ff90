import { createInterface, type Interface } from "node:readline";
import { Writable } from "node:stream";

/**
 * Answers typed at a terminal or read from a pipe, one line each. Lines are queued as they arrive,
 * so a script can write every answer up front (or one at a time as prompts appear) and none is
 * lost between two questions; the end of the input is an answer too (undefined). At a terminal,
 * readline gives line editing and history, and hands Ctrl-C to `onInterrupt` (the terminal is in
 * raw mode then, so no SIGINT reaches the process). Callers start prompts on a fresh line.
 */
export type TLineInput = {
  ask(prompt: string): Promise<string | undefined>;
  onInterrupt(handler: () => void): void;
  close(): void;
};

export function openLineInput(input: NodeJS.ReadStream = process.stdin, output: NodeJS.WriteStream = process.stdout): TLineInput {
  const terminal = Boolean(input.isTTY);
  const readline: Interface = createInterface({ input, output, terminal, historySize: terminal ? 100 : 0 });
  const lines: string[] = [];
  const waiting: ((line: string | undefined) => void)[] = [];
  let ended = false;
  readline.on("line", (line) => {
    const next = waiting.shift();
    if (next) next(line);
    else lines.push(line);
  });
  readline.on("close", () => {
    ended = true;
    for (const next of waiting.splice(0)) next(undefined);
  });
  return {
    async ask(prompt) {
      readline.setPrompt(prompt);
      readline.prompt();
      const line = lines.length ? lines.shift() : ended ? undefined : await new Promise<string | undefined>((resolve) => waiting.push(resolve));
      // A terminal echoes what was typed; from a pipe, the transcript shows the answer after its prompt.
      if (!terminal) output.write(`${line ?? ""}\n`);
      return line;
    },
    onInterrupt(handler) {
      readline.on("SIGINT", handler);
    },
    close() {
      readline.close();
    },
  };
}

/**
 * One secret line (an API token): at a terminal nothing typed is shown; from a pipe the line is
 * read and not echoed either. Undefined when the input ends first.
 */
export function askSecret(prompt: string, input: NodeJS.ReadStream = process.stdin, output: NodeJS.WriteStream = process.stdout): Promise<string | undefined> {
  let muted = false;
  // readline echoes through its output; this one forwards the prompt and swallows the keystrokes.
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      if (!muted) output.write(chunk);
      callback();
    },
  });
  const readline = createInterface({ input, output: sink, terminal: Boolean(input.isTTY) });
  return new Promise((resolve) => {
    let answered = false;
    readline.on("close", () => {
      output.write("\n");
      if (!answered) resolve(undefined);
    });
    readline.on("SIGINT", () => readline.close());
    readline.question(prompt, (answer) => {
      answered = true;
      readline.close();
      resolve(answer);
    });
    muted = true;
  });
}
