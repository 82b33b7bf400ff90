/**
 * A deliberately small syntax highlighter for code blocks: one scanner for C-like, Python, shell,
 * SQL, CSS, markup, JSON/YAML and diffs that knows comments, strings, numbers, keywords and
 * literals. Enough to make code readable; not a parser.
 */
export type TTokenKind = "plain" | "keyword" | "string" | "comment" | "number" | "literal" | "function" | "type" | "property" | "tag" | "inserted" | "deleted" | "meta";
export type TToken = { kind: TTokenKind; text: string };

type TLanguage = {
  keywords: ReadonlySet<string>;
  literals: ReadonlySet<string>;
  lineComments: string[];
  blockComments: [string, string][];
  quotes: string[];
  tripleQuotes?: boolean;
  caseInsensitive?: boolean;
  capitalizedTypes?: boolean;
  variables?: boolean;
  markup?: boolean;
  keys?: boolean;
};

const words = (list: string) => new Set(list.split(/\s+/).filter(Boolean));

const C_COMMENTS = { lineComments: ["//"], blockComments: [["/*", "*/"]] as [string, string][] };

const JS_KEYWORDS =
  "async await break case catch class const continue debugger default delete do else export extends finally for from function get if implements import in instanceof interface let new of package private protected public readonly return set static super switch this throw try type typeof var void while with yield enum declare namespace abstract as satisfies keyof infer is";

const LANGUAGES: Record<string, TLanguage> = {
  javascript: {
    keywords: words(JS_KEYWORDS),
    literals: words("true false null undefined NaN Infinity"),
    ...C_COMMENTS,
    quotes: ['"', "'", "`"],
    capitalizedTypes: true,
  },
  json: { keywords: words(""), literals: words("true false null"), lineComments: [], blockComments: [], quotes: ['"'], keys: true },
  python: {
    keywords: words(
      "and as assert async await break class continue def del elif else except finally for from global if import in is lambda match case nonlocal not or pass raise return try while with yield print self",
    ),
    literals: words("True False None"),
    lineComments: ["#"],
    blockComments: [],
    quotes: ['"', "'"],
    tripleQuotes: true,
    capitalizedTypes: true,
  },
  shell: {
    keywords: words(
      "if then else elif fi case esac for while until do done in function return exit export local readonly unset echo cd set source alias sudo npm npx node git cat grep sed awk curl ls rm cp mv mkdir chmod",
    ),
    literals: words("true false"),
    lineComments: ["#"],
    blockComments: [],
    quotes: ['"', "'"],
    variables: true,
  },
  go: {
    keywords: words(
      "break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var",
    ),
    literals: words("true false nil iota"),
    ...C_COMMENTS,
    quotes: ['"', "'", "`"],
    capitalizedTypes: true,
  },
  rust: {
    keywords: words(
      "as async await break const continue crate dyn else enum extern fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait type unsafe use where while",
    ),
    literals: words("true false None Some Ok Err"),
    ...C_COMMENTS,
    quotes: ['"'],
    capitalizedTypes: true,
  },
  c: {
    keywords: words(
      "auto break case catch char class const continue default delete do double else enum extern float for friend goto if inline int long namespace new operator private protected public register return short signed sizeof static struct switch template this throw try typedef typename union unsigned using virtual void volatile while bool abstract boolean byte extends final finally implements import instanceof interface native package super synchronized throws transient var val fun object override data when is in out internal open sealed lateinit suspend string decimal foreach readonly ref sealed async await let guard func protocol extension",
    ),
    literals: words("true false null nullptr NULL nil"),
    ...C_COMMENTS,
    quotes: ['"', "'"],
    capitalizedTypes: true,
  },
  ruby: {
    keywords: words("alias and begin break case class def defined do else elsif end ensure for if in module next not or redo rescue retry return self super then undef unless until when while yield require puts attr_accessor"),
    literals: words("true false nil"),
    lineComments: ["#"],
    blockComments: [],
    quotes: ['"', "'"],
    capitalizedTypes: true,
  },
  php: {
    keywords: words("abstract and array as break case catch class const continue declare default do echo else elseif extends final for foreach function global if implements include interface namespace new or private protected public require return static switch throw trait try use var while"),
    literals: words("true false null"),
    lineComments: ["//", "#"],
    blockComments: [["/*", "*/"]],
    quotes: ['"', "'"],
    variables: true,
  },
  sql: {
    keywords: words(
      "select from where and or not insert into values update set delete create table index view drop alter add column primary key foreign references join left right inner outer full on group by order having limit offset as distinct union all case when then else end in is like between exists with returning default constraint unique check cascade begin commit rollback transaction grant revoke asc desc count sum avg min max coalesce",
    ),
    literals: words("null true false"),
    lineComments: ["--"],
    blockComments: [["/*", "*/"]],
    quotes: ["'", '"'],
    caseInsensitive: true,
  },
  css: {
    keywords: words("@media @import @keyframes @font-face @supports @layer @apply @tailwind @theme !important"),
    literals: words(""),
    lineComments: [],
    blockComments: [["/*", "*/"]],
    quotes: ['"', "'"],
  },
  markup: { keywords: words(""), literals: words(""), lineComments: [], blockComments: [["<!--", "-->"]], quotes: ['"', "'"], markup: true },
  yaml: { keywords: words(""), literals: words("true false null yes no on off ~"), lineComments: ["#"], blockComments: [], quotes: ['"', "'"], keys: true },
  toml: { keywords: words(""), literals: words("true false"), lineComments: ["#"], blockComments: [], quotes: ['"', "'"], keys: true },
};

const ALIASES: Record<string, string> = {
  js: "javascript", jsx: "javascript", mjs: "javascript", cjs: "javascript", ts: "javascript", tsx: "javascript", typescript: "javascript", mts: "javascript",
  json5: "json", jsonc: "json",
  py: "python", python3: "python",
  sh: "shell", bash: "shell", zsh: "shell", console: "shell", shellscript: "shell", dockerfile: "shell", docker: "shell", makefile: "shell", make: "shell", powershell: "shell", ps1: "shell",
  golang: "go",
  rs: "rust",
  cpp: "c", "c++": "c", h: "c", hpp: "c", cc: "c", java: "c", kotlin: "c", kt: "c", cs: "c", csharp: "c", swift: "c", scala: "c", dart: "c", "objective-c": "c",
  rb: "ruby",
  postgres: "sql", postgresql: "sql", mysql: "sql", sqlite: "sql", psql: "sql", plsql: "sql",
  scss: "css", sass: "css", less: "css",
  html: "markup", xml: "markup", svg: "markup", vue: "markup", svelte: "markup",
  yml: "yaml",
  ini: "toml", env: "toml", properties: "toml", conf: "toml",
};

export function languageOf(name: string): string | undefined {
  const key = name.toLowerCase();
  if (key === "diff" || key === "patch") return "diff";
  return LANGUAGES[key] ? key : ALIASES[key];
}

function push(tokens: TToken[], kind: TTokenKind, text: string) {
  if (!text) return;
  const last = tokens[tokens.length - 1];
  if (last && last.kind === kind) last.text += text;
  else tokens.push({ kind, text });
}

function highlightDiff(code: string): TToken[] {
  const tokens: TToken[] = [];
  const lines = code.split("\n");
  lines.forEach((line, index) => {
    const newline = index < lines.length - 1 ? "\n" : "";
    const kind: TTokenKind = line.startsWith("+++") || line.startsWith("---") || line.startsWith("@@") ? "meta" : line.startsWith("+") ? "inserted" : line.startsWith("-") ? "deleted" : "plain";
    push(tokens, kind, line);
    push(tokens, "plain", newline);
  });
  return tokens;
}

const IDENTIFIER = /[A-Za-z_$@][\w$-]*/y;
const NUMBER = /(?:0[xX][\da-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?)[a-zA-Z%]*/y;

export function highlight(code: string, languageName: string): TToken[] {
  const name = languageOf(languageName);
  if (!name) return [{ kind: "plain", text: code }];
  if (name === "diff") return highlightDiff(code);
  const language = LANGUAGES[name]!;
  const tokens: TToken[] = [];
  let index = 0;
  let inTag = false;

  const startsWithAt = (text: string) => code.startsWith(text, index);

  outer: while (index < code.length) {
    const char = code[index]!;

    for (const marker of language.lineComments) {
      // "#" starts a shell comment only at the start of a word.
      if (startsWithAt(marker) && !(marker === "#" && language.variables && index > 0 && !/\s/.test(code[index - 1]!))) {
        const end = code.indexOf("\n", index);
        const stop = end === -1 ? code.length : end;
        push(tokens, "comment", code.slice(index, stop));
        index = stop;
        continue outer;
      }
    }
    for (const [open, close] of language.blockComments) {
      if (startsWithAt(open)) {
        const end = code.indexOf(close, index + open.length);
        const stop = end === -1 ? code.length : end + close.length;
        push(tokens, "comment", code.slice(index, stop));
        index = stop;
        continue outer;
      }
    }

    if (language.markup) {
      const tag = /<\/?[A-Za-z][\w:.-]*|\/?>/y;
      tag.lastIndex = index;
      const match = tag.exec(code);
      if (match) {
        push(tokens, "tag", match[0]);
        inTag = !match[0].endsWith(">");
        index += match[0].length;
        continue;
      }
      if (!inTag) {
        // Text between tags is plain, quotes and all.
        push(tokens, "plain", char);
        index++;
        continue;
      }
    }

    if (language.quotes.includes(char)) {
      const triple = language.tripleQuotes && code.startsWith(char.repeat(3), index);
      const delimiter = triple ? char.repeat(3) : char;
      let end = index + delimiter.length;
      while (end < code.length) {
        if (code[end] === "\\") {
          end += 2;
          continue;
        }
        if (code.startsWith(delimiter, end)) {
          end += delimiter.length;
          break;
        }
        // Single-quoted strings end at the line end in most languages (and "don't" in prose).
        if (!triple && char !== "`" && code[end] === "\n") break;
        end++;
      }
      const text = code.slice(index, Math.min(end, code.length));
      index += text.length;
      let after = index;
      while (after < code.length && (code[after] === " " || code[after] === "\t")) after++;
      push(tokens, language.keys && code[after] === ":" ? "property" : "string", text);
      continue;
    }

    if (language.variables && char === "$") {
      const variable = /\$(?:\{[^}\n]*\}|[A-Za-z_]\w*|[0-9@#?*!$-])/y;
      variable.lastIndex = index;
      const match = variable.exec(code);
      if (match) {
        push(tokens, "property", match[0]);
        index += match[0].length;
        continue;
      }
    }

    const previous = code[index - 1] ?? "";
    if (/[\d.]/.test(char) && !/[\w$]/.test(previous) && (char !== "." || /\d/.test(code[index + 1] ?? ""))) {
      NUMBER.lastIndex = index;
      const match = NUMBER.exec(code);
      if (match && match[0] !== ".") {
        push(tokens, "number", match[0]);
        index += match[0].length;
        continue;
      }
    }

    if (name === "css" && char === "#" && /[\da-fA-F]/.test(code[index + 1] ?? "")) {
      const color = /#[\da-fA-F]{3,8}\b/y;
      color.lastIndex = index;
      const match = color.exec(code);
      if (match) {
        push(tokens, "number", match[0]);
        index += match[0].length;
        continue;
      }
    }

    IDENTIFIER.lastIndex = index;
    const identifier = /[A-Za-z_$@!]/.test(char) ? IDENTIFIER.exec(code) : null;
    if (identifier && !/[\w$]/.test(previous)) {
      let word = identifier[0];
      // Hyphens belong to identifiers only in CSS, markup attributes and YAML keys.
      if (name !== "css" && !language.markup && !language.keys && word.includes("-")) word = word.slice(0, word.indexOf("-"));
      if (!word) word = char;
      const lookup = language.caseInsensitive ? word.toLowerCase() : word;
      let after = index + word.length;
      while (after < code.length && (code[after] === " " || code[after] === "\t")) after++;
      const next = code[after];
      let kind: TTokenKind = "plain";
      if (language.keywords.has(lookup)) kind = "keyword";
      else if (language.literals.has(lookup)) kind = "literal";
      else if (language.keys && next === ":" && (name !== "yaml" || /^[ \t-]*$/.test(code.slice(code.lastIndexOf("\n", index - 1) + 1, index)))) kind = "property";
      else if (language.markup && inTag) kind = "property";
      else if (name === "css" && next === ":") kind = "property";
      else if (next === "(" && !language.markup) kind = "function";
      else if (language.capitalizedTypes && /^[A-Z][a-z0-9]/.test(word)) kind = "type";
      push(tokens, kind, word);
      index += word.length;
      continue;
    }

    push(tokens, "plain", char);
    index++;
  }
  return tokens;
}
