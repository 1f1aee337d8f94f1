/**
 * Parsing of decimal float literals of any length (`float(s)`, `json.decode`) without one native pass
 * over the whole text: a literal of 20 million digits took ~100 ms in V8's regex, `replaceAll` and
 * `Number`, with no poll. The text is scanned here in chunks, with polls between them, and only its
 * first {@link KEPT_DIGITS} significant digits reach `Number`.
 *
 * Why that is exact: two adjacent doubles' rounding boundary (their midpoint) has at most 767 significant
 * decimal digits. Digits past the 800th therefore never decide the rounding, except through whether any of
 * them is nonzero: replacing them by a single `1` when one is (a "sticky" digit) keeps the value strictly
 * between the same two 800-digit neighbours, and so on the same side of every boundary.
 *
 * @module
 */

/** Decimal float texts longer than this are parsed by {@link parseLongDecimal}. */
export const LONG_FLOAT_TEXT = 4096;

/** Significant digits kept (more than the 767 that a rounding boundary can need). */
const KEPT_DIGITS = 800;
/** Characters scanned between two polls. */
const POLL_CHARS = 32768;
/** An exponent is clamped here: past it the value is zero or infinite whatever the digits. */
const EXPONENT_CLAMP = 1_000_000_000;

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/**
 * Parses a decimal float literal in Go's syntax (`strconv.ParseFloat`): an optional sign, digits, an
 * optional fraction, an optional exponent; with `underscores`, single underscores between digits. The
 * value is the correctly rounded double, as `Number` gives for a short text (±Infinity on overflow).
 * Returns undefined when `s` is not such a literal. Calls `poll` every 32 K characters.
 */
export function parseLongDecimal(s: string, poll: () => void, underscores: boolean): number | undefined {
  return new DecimalScanner(s, poll, underscores).parse();
}

/** The state of one {@link parseLongDecimal} (fields, not closure variables: the scan loop stays fast). */
class DecimalScanner {
  private i = 0;
  private nextPoll = POLL_CHARS;
  /** The first {@link KEPT_DIGITS} significant digits. */
  private kept = "";
  private significant = 0;
  /** Whether a nonzero digit comes past those kept. */
  private sticky = false;
  /** Significant digits before the point. */
  private intSignificant = 0;
  /** Zeros after the point, before the first significant digit. */
  private leadingFractionZeros = 0;
  /** The exponent's value, clamped at {@link EXPONENT_CLAMP}. */
  private exponent = 0;

  constructor(
    private readonly s: string,
    private readonly poll: () => void,
    private readonly underscores: boolean,
  ) {}

  parse(): number | undefined {
    const s = this.s, n = s.length;
    const first = s.charCodeAt(0);
    const negative = first === 0x2d;
    if (negative || first === 0x2b) this.i = 1;
    const intDigits = this.digits(MANTISSA_INT);
    let fractionDigits = 0;
    if (s.charCodeAt(this.i) === 0x2e) {
      this.i++;
      fractionDigits = this.digits(MANTISSA_FRACTION);
    }
    if (intDigits === 0 && fractionDigits === 0) return undefined;
    let exponentSign = 1;
    if (this.i < n && (s.charCodeAt(this.i) | 0x20) === 0x65) {
      const c = s.charCodeAt(++this.i);
      if (c === 0x2d || c === 0x2b) {
        exponentSign = c === 0x2d ? -1 : 1;
        this.i++;
      }
      if (this.digits(EXPONENT) === 0) return undefined;
    }
    if (this.i !== n) return undefined;
    if (this.significant === 0) return negative ? -0 : 0;
    // The value is 0.kept… × 10^scale.
    const scale = (this.intSignificant > 0 ? this.intSignificant : -this.leadingFractionZeros) +
      exponentSign * this.exponent;
    return Number(`${negative ? "-" : ""}0.${this.kept}${this.sticky ? "1" : ""}e${scale}`);
  }

  /** Scans one run of digits (underscores between digits, when allowed) of a `part`; returns how many. */
  private digits(part: number): number {
    const s = this.s, n = s.length;
    let i = this.i, count = 0;
    for (; i < n; i++) {
      if (i >= this.nextPoll) {
        this.poll();
        this.nextPoll = i + POLL_CHARS;
      }
      const c = s.charCodeAt(i);
      if (c >= 0x30 && c <= 0x39) {
        count++;
        if (part === EXPONENT) this.exponent = Math.min(EXPONENT_CLAMP, this.exponent * 10 + (c - 0x30));
        else if (this.significant === 0 && c === 0x30) {
          if (part === MANTISSA_FRACTION) this.leadingFractionZeros++;
        } else if (++this.significant <= KEPT_DIGITS) {
          if (part === MANTISSA_INT) this.intSignificant++;
          this.kept += s[i];
        } else {
          if (part === MANTISSA_INT) this.intSignificant++;
          if (c !== 0x30) this.sticky = true;
        }
        continue;
      }
      if (c === 0x5f && this.underscores && count > 0 && i + 1 < n && isDigit(s.charCodeAt(i + 1))) continue;
      break;
    }
    this.i = i;
    return count;
  }
}

/** The parts of a literal {@link DecimalScanner.digits} scans. */
const MANTISSA_INT = 0, MANTISSA_FRACTION = 1, EXPONENT = 2;
