import { styleText } from "node:util";

/**
 * Colour only for a person at a terminal: a pipe or a file gets plain text (scripts parse it), and
 * NO_COLOR or TERM=dumb turn colour off everywhere (https://no-color.org).
 */
type TStyle = "bold" | "dim" | "red" | "green" | "yellow" | "cyan";

export type TPainter = (style: TStyle, text: string) => string;

export function painterFor(stream: NodeJS.WriteStream | { isTTY?: boolean }): TPainter {
  const colour = Boolean(stream.isTTY) && !process.env.NO_COLOR && process.env.TERM !== "dumb";
  return colour ? (style, text) => styleText(style, text) : (_style, text) => text;
}

/** One line of at most `limit` characters: whitespace runs become one space, the rest is cut with "…". */
export function oneLine(text: string, limit: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > limit ? `${flat.slice(0, limit - 1)}…` : flat;
}

/**
 * A stream written in lines and in streamed pieces: `line()` starts on a fresh line whatever was
 * streamed before it, so a tool card never lands in the middle of a sentence.
 */
export type TTerminalWriter = {
  paint: TPainter;
  /** Streamed text, as it comes. */
  write(text: string): void;
  /** One whole line. */
  line(text: string): void;
  /** Ends a streamed line, if one is open. */
  endLine(): void;
};

export function terminalWriter(stream: NodeJS.WriteStream | (NodeJS.WritableStream & { isTTY?: boolean })): TTerminalWriter {
  let atLineStart = true;
  const write = (text: string) => {
    if (!text) return;
    stream.write(text);
    atLineStart = text.endsWith("\n");
  };
  const endLine = () => {
    if (!atLineStart) write("\n");
  };
  return { paint: painterFor(stream), write, endLine, line: (text) => (endLine(), write(`${text}\n`)) };
}
