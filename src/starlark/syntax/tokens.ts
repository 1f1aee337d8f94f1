/**
 * Starlark token kinds, numbered in the reference implementation's order, and their printed names.
 *
 * @module
 */

// Token kinds, in the reference's order (the order matters: PLUS..STARSTAR are the quoted punctuation).
/** Illegal token. */
export const ILLEGAL: number = 0;
/** End of file. */
export const EOF: number = 1;
/** End of a logical line. */
export const NEWLINE: number = 2;
/** Indentation increase. */
export const INDENT: number = 3;
/** Indentation decrease. */
export const OUTDENT: number = 4;
/** Identifier. */
export const IDENT: number = 5;
/** Int literal. */
export const INT: number = 6;
/** Float literal. */
export const FLOAT: number = 7;
/** String literal. */
export const STRING: number = 8;
/** Bytes literal. */
export const BYTES: number = 9;
/** `+` */ export const PLUS: number = 10;
/** `-` */ export const MINUS: number = 11;
/** `*` */ export const STAR: number = 12;
/** `/` */ export const SLASH: number = 13;
/** `//` */ export const SLASHSLASH: number = 14;
/** `%` */ export const PERCENT: number = 15;
/** `&` */ export const AMP: number = 16;
/** `|` */ export const PIPE: number = 17;
/** `^` */ export const CIRCUMFLEX: number = 18;
/** `<<` */ export const LTLT: number = 19;
/** `>>` */ export const GTGT: number = 20;
/** `~` */ export const TILDE: number = 21;
/** `.` */ export const DOT: number = 22;
/** `,` */ export const COMMA: number = 23;
/** `=` */ export const EQ: number = 24;
/** `;` */ export const SEMI: number = 25;
/** `:` */ export const COLON: number = 26;
/** `(` */ export const LPAREN: number = 27;
/** `)` */ export const RPAREN: number = 28;
/** `[` */ export const LBRACK: number = 29;
/** `]` */ export const RBRACK: number = 30;
/** `{` */ export const LBRACE: number = 31;
/** `}` */ export const RBRACE: number = 32;
/** `<` */ export const LT: number = 33;
/** `>` */ export const GT: number = 34;
/** `>=` */ export const GE: number = 35;
/** `<=` */ export const LE: number = 36;
/** `==` */ export const EQL: number = 37;
/** `!=` */ export const NEQ: number = 38;
/** `+=` */ export const PLUS_EQ: number = 39;
/** `-=` */ export const MINUS_EQ: number = 40;
/** `*=` */ export const STAR_EQ: number = 41;
/** `/=` */ export const SLASH_EQ: number = 42;
/** `//=` */ export const SLASHSLASH_EQ: number = 43;
/** `%=` */ export const PERCENT_EQ: number = 44;
/** `&=` */ export const AMP_EQ: number = 45;
/** `|=` */ export const PIPE_EQ: number = 46;
/** `^=` */ export const CIRCUMFLEX_EQ: number = 47;
/** `<<=` */ export const LTLT_EQ: number = 48;
/** `>>=` */ export const GTGT_EQ: number = 49;
/** `**` */ export const STARSTAR: number = 50;
/** `and` */ export const AND: number = 51;
/** `break` */ export const BREAK: number = 52;
/** `continue` */ export const CONTINUE: number = 53;
/** `def` */ export const DEF: number = 54;
/** `elif` */ export const ELIF: number = 55;
/** `else` */ export const ELSE: number = 56;
/** `for` */ export const FOR: number = 57;
/** `if` */ export const IF: number = 58;
/** `in` */ export const IN: number = 59;
/** `lambda` */ export const LAMBDA: number = 60;
/** `load` */ export const LOAD: number = 61;
/** `not` */ export const NOT: number = 62;
/** `not in`, synthesized by the parser. */
export const NOT_IN: number = 63;
/** `or` */ export const OR: number = 64;
/** `pass` */ export const PASS: number = 65;
/** `return` */ export const RETURN: number = 66;
/** `while` */ export const WHILE: number = 67;
/** First reserved word (`as`); reserved words run up to {@link MAX_TOKEN} - 1. */
export const AS: number = 68;
/** One past the last token kind. */
export const MAX_TOKEN: number = 84;

const RESERVED = [
  "as",
  "async",
  "await",
  "class",
  "del",
  "except",
  "finally",
  "from",
  "global",
  "import",
  "is",
  "nonlocal",
  "raise",
  "try",
  "with",
  "yield",
];

/** Token names as the reference prints them (BYTES has no name there, hence the empty string). */
export const TOKEN_NAMES: readonly string[] = [
  "illegal token",
  "end of file",
  "newline",
  "indent",
  "outdent",
  "identifier",
  "int literal",
  "float literal",
  "string literal",
  "",
  ..."+ - * / // % & | ^ << >> ~ . , = ; : ( ) [ ] { } < > >= <= == != += -= *= /= //= %= &= |= ^= <<= >>= **"
    .split(" "),
  ..."and break continue def elif else for if in lambda load not".split(" "),
  "not in",
  ..."or pass return while".split(" "),
  ...RESERVED,
];

/** Keyword (and reserved word) text to token kind. */
export const KEYWORDS: Map<string, number> = new Map();
for (let t = AND; t < MAX_TOKEN; t++) if (t !== NOT_IN) KEYWORDS.set(TOKEN_NAMES[t], t);

// Keywords bucketed by length and first letter, so the scanner can recognize them without slicing the
// identifier out of the source and hashing it (a measurable cost per token).
const KW_WORDS: (string[] | undefined)[] = [];
const KW_TOKS: (number[] | undefined)[] = [];
for (const [kw, t] of KEYWORDS) {
  const key = kw.length * 128 + kw.charCodeAt(0);
  (KW_WORDS[key] ??= []).push(kw);
  (KW_TOKS[key] ??= []).push(t);
}

/** The keyword token for `src[start, end)`, or -1 if that text is not a keyword. */
export function keywordAt(src: string, start: number, end: number): number {
  const len = end - start;
  if (len < 2 || len > 8) return -1;
  const key = len * 128 + src.charCodeAt(start);
  const words = KW_WORDS[key];
  if (words === undefined) return -1;
  for (let k = 0; k < words.length; k++) if (src.startsWith(words[k], start)) return KW_TOKS[key]![k];
  return -1;
}

/** A token name as it appears in "got X, want Y" messages: punctuation is quoted. */
export function tokenString(tok: number): string {
  return tok >= PLUS && tok <= STARSTAR ? `'${TOKEN_NAMES[tok]}'` : TOKEN_NAMES[tok];
}
