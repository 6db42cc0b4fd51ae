// The server's rule for a display name (JoinGame, TakeOverSeat), checked without a call: a program
// that makes a table for its player checks the name first, so that a refused name leaves no open
// table behind. The same rule as the server's (hustings.service.seats.display_name) and the Python
// client's checked_display_name, on the Unicode data of the server's release
// (display_names_data.ts); the server's own check decides in the end.

import * as data from "./display_names_data.js";
import { HustingsError } from "./rest.js";

const F = data.FLAGS;
const FOLD = new Map<string, string>(Object.entries(data.CASEFOLD));
const LOOKALIKE = new Map<string, string>(Object.entries(data.LOOKALIKES));
const DIGIT_READ = new Map<string, string>(Object.entries(data.DIGITS_READ_AS));
const MIXES_ALLOWED = data.MIXES_ALLOWED.map((scripts) => new Set<number>(scripts));

/** The flags of a code point (display_names_data.ts's PROPERTIES), found by bisection. */
function flags(point: number): number {
  const starts = data.STARTS;
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle]! <= point) low = middle;
    else high = middle - 1;
  }
  return data.PROPERTIES[low]!;
}

function has(character: string, flag: number): boolean {
  return (flags(character.codePointAt(0)!) & flag) !== 0;
}

/** Python's str.strip(): the blanks (str.isspace) around `name` taken off. */
function strip(name: string): string {
  const points = [...name];
  let start = 0;
  let end = points.length;
  while (start < end && has(points[start]!, F.SPACE)) start++;
  while (end > start && has(points[end - 1]!, F.SPACE)) end--;
  return points.slice(start, end).join("");
}

/** Python's " ".join(name.split()): each run of blanks one space, none around. */
function spaced(name: string): string {
  const words: string[] = [];
  let word = "";
  for (const c of name) {
    if (has(c, F.SPACE)) {
      if (word) words.push(word);
      word = "";
    } else {
      word += c;
    }
  }
  if (word) words.push(word);
  return words.join(" ");
}

function showsNothing(character: string): boolean {
  const point = character.codePointAt(0)!;
  return data.SHOWING_NOTHING.some(([low, high]) => low! <= point && point <= high!);
}

/** `name` without the characters that show nothing. */
function shown(name: string): string {
  return [...name].filter((c) => !showsNothing(c)).join("");
}

function stackedTooHigh(name: string): boolean {
  let classed = 0;
  let marks = 0;
  for (const c of name) {
    const f = flags(c.codePointAt(0)!);
    classed = f & F.COMBINING ? classed + 1 : 0;
    if (f & F.MARK) marks += 1;
    else if (!(f & F.SPACING_MARK)) marks = 0;
    if (classed > data.MAX_CLASSED_MARKS_IN_A_ROW || marks > data.MAX_MARKS_ON_A_LETTER) return true;
  }
  return false;
}

function mixesScripts(name: string): boolean {
  let word = new Set<number>();
  for (const c of `${shown(name).normalize("NFKC")} `) {
    const f = flags(c.codePointAt(0)!);
    if (f & F.LETTER) {
      const script = f >> F.SCRIPT_SHIFT;
      if (script) word.add(script);
    } else if (!(f & (F.MARK | F.SPACING_MARK))) {
      if (word.size > 1 && !MIXES_ALLOWED.some((allowed) => [...word].every((s) => allowed.has(s)))) return true;
      word = new Set();
    }
  }
  return false;
}

function translate(name: string, table: Map<string, string>): string {
  return [...name].map((c) => table.get(c) ?? c).join("");
}

/** Python's casefold, a character at a time (it looks at no context). */
function casefold(name: string): string {
  return translate(name, FOLD);
}

function skeleton(name: string): string {
  return translate(casefold(spaced(shown(translate(name, LOOKALIKE)).normalize("NFKC"))), LOOKALIKE);
}

/** What `name` reads as in Latin letters alone: "Bot(random)" and "B0t [rand0m]." read as "botrandom". */
function letters(name: string): string {
  const bare = [...skeleton(name).normalize("NFKD")].filter((c) => !has(c, F.COMBINING)).join("");
  return [...translate(bare, DIGIT_READ)].filter((c) => c >= "a" && c <= "z").join("");
}

/** The server's SEAT_LABEL_RE, `[(\[{]\s*seat\s*\d+\s*[)\]}]\W*$`, searched with Python's classes. */
function endsAsASeatLabel(name: string): boolean {
  const p = [...name];
  const space = (i: number): number => {
    while (i < p.length && has(p[i]!, F.SPACE)) i++;
    return i;
  };
  for (let start = 0; start < p.length; start++) {
    if (!"([{".includes(p[start]!)) continue;
    let i = space(start + 1);
    if (p.slice(i, i + 4).join("") !== "seat") continue;
    i = space(i + 4);
    const digits = i;
    while (i < p.length && has(p[i]!, F.DIGIT)) i++;
    if (i === digits) continue;
    i = space(i);
    if (i >= p.length || !")]}".includes(p[i]!)) continue;
    if (p.slice(i + 1).every((c) => !has(c, F.WORD))) return true;
  }
  return false;
}

/** Why the server would refuse `sent` as a display name (INVALID_ARGUMENT BAD_DISPLAY_NAME), or
 * undefined when it takes it. */
export function displayNameProblem(sent: string): string | undefined {
  const name = strip(sent);
  const length = [...name].length;
  if (!length || length > data.MAX_DISPLAY_NAME || ![...name].every((c) => has(c, F.PRINTABLE))) {
    return `display_name must be 1 to ${data.MAX_DISPLAY_NAME} printable characters`;
  }
  if (!strip(shown(name))) return "display_name must show something: it holds only characters that show nothing";
  if (stackedTooHigh(name)) {
    return `display_name may stack at most ${data.MAX_MARKS_ON_A_LETTER} marks on a letter (${data.MAX_CLASSED_MARKS_IN_A_ROW} of a combining class in a row)`;
  }
  if (mixesScripts(name)) return "display_name may not mix the letters of several scripts in one word: they pass for each other";
  const read = letters(name);
  if (data.BOT_NAMES_READ.some((bot) => read.startsWith(bot))) return "display_name may not be a server bot's name";
  if (endsAsASeatLabel(skeleton(name))) return 'display_name may not end as a seat\'s number does on the page, "(seat 2)"';
  return undefined;
}

/** `sent` as JoinGame takes it (without the blanks around it), or the refusal JoinGame would
 * give (a HustingsError of INVALID_ARGUMENT, BAD_DISPLAY_NAME), without a call. */
export function checkedDisplayName(sent: string): string {
  const problem = displayNameProblem(sent);
  if (problem !== undefined) throw new HustingsError(400, 3, "BAD_DISPLAY_NAME", problem);
  return strip(sent);
}
