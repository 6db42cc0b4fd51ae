// Small DOM and wording helpers shared by the shell and the game renderers.

/** An element with attributes (on* become listeners, dataset merges) and children. */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** camelCase or snake_case as lower-case words: "chooseTopCandidates" → "choose top candidates". */
export function words(name) {
  return String(name ?? "").replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/_/g, " ").toLowerCase();
}

/** An enum value without its prefix, in words: ("GAME_STATUS_OPEN", "GAME_STATUS_") → "open". */
export function enumWords(value, prefix) {
  return String(value ?? "").replace(prefix, "").replace(/_/g, " ").toLowerCase();
}

/** First letter upper case. */
export function capital(text) {
  const s = String(text ?? "");
  return s ? s[0].toUpperCase() + s.slice(1) : s;
}

/** A count with its noun: (1, "vote") → "1 vote", (3, "vote") → "3 votes". */
export function count(n, noun, plural = `${noun}s`) {
  return `${n} ${n === 1 ? noun : plural}`;
}

// What tells a control apart from the others across redraws of one state: its id, else its
// classes (but "selected"), data attributes and its parent's (a choice's value and field), else
// also its text and label. Controls alike in all of that are told apart by their order.
function focusKey(node) {
  const data = JSON.stringify({ ...node.dataset });
  const parent = JSON.stringify({ ...(node.parentElement?.dataset ?? {}) });
  const classes = [...node.classList].filter((c) => c !== "selected").join(" ");
  const named = node.id || data !== "{}";
  return [node.tagName, node.id, classes, data, parent, named ? "" : `${node.textContent}|${node.getAttribute("aria-label") ?? ""}`].join("\u0000");
}

const FOCUSABLE = "button, input, select, textarea, a[href], summary, [tabindex]";
const TYPED = new Set(["INPUT", "TEXTAREA"]);

/**
 * Replace `container`'s children, and give the focus a control had in it to the control drawn in
 * its place (what was typed into a field carried over), else to `fallback(lost)`'s answer, where
 * `lost` is the control that had it: the page draws anew at every pick and every update, and a
 * keyboard player was sent back to the top of the page each time. The page never scrolls for it.
 * A `details` with an id that was open is open again.
 */
export function replaceKeepingFocus(container, children, fallback = () => null) {
  // A disclosure the player opened stays open when drawn again (told apart by its id).
  const opened = new Set([...container.querySelectorAll("details[id][open]")].map((node) => node.id));
  const active = document.activeElement;
  const had = active && active !== document.body && container.contains(active) ? focusKey(active) : null;
  const nth = had === null ? -1 : [...container.querySelectorAll(FOCUSABLE)].filter((node) => focusKey(node) === had).indexOf(active);
  container.replaceChildren(...children);
  for (const node of container.querySelectorAll("details[id]")) if (opened.has(node.id)) node.open = true;
  if (had === null) return;
  const alike = [...container.querySelectorAll(FOCUSABLE)].filter((node) => !node.disabled && focusKey(node) === had);
  const again = alike[Math.max(0, nth)] ?? null;
  if (again && TYPED.has(active.tagName) && TYPED.has(again.tagName)) {
    again.value = active.value;
    again.setSelectionRange?.(active.selectionStart, active.selectionEnd);
  }
  (again ?? fallback(active))?.focus({ preventScroll: true });
}

/** A list in words: ["a", "b", "c"] → "a, b and c". */
export function listWords(items) {
  const list = items.filter((x) => x !== "" && x !== undefined && x !== null).map(String);
  if (list.length <= 1) return list.join("");
  return `${list.slice(0, -1).join(", ")} and ${list[list.length - 1]}`;
}

/** A section with a heading; `id` lets tests and styles find it. */
export function section(id, title, ...children) {
  return h("section", { id }, title ? h("h2", {}, title) : null, ...children);
}

/** A small labelled number ("votes 12"), the unit of the boards' public counts. */
export function stat(label, value, attrs = {}) {
  return h("span", { class: "stat", ...attrs }, h("span", { class: "stat-label" }, label), " ", h("b", {}, String(value ?? 0)));
}

// Characters that show nothing (as the server's names check, engine/names.py): left out when
// names are compared.
const SHOWING_NOTHING = /[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u2800\u3164\ufe00-\ufe0f\uffa0\u{e0100}-\u{e01ef}]/gu;

// Characters that read as a Latin letter or a parenthesis (each pair: the character, then what it
// reads as), as the server's names check takes them (LOOKALIKES in engine/names.py, which a test
// compares): taken for it before case is folded and after.
export const LOOKALIKES = "аaвbгrеeѕsіiјjкkмmнhоoпnрpсcтtуyхxѵvһhӏlԁdԛqԝwүyαaβbεeζzηhιiκkμmνvοoρpτtυyχxօoոnցgհhսuզqᴀaʙbᴄcᴅdᴇeꜰfɢgʜhɪiᴊjᴋkʟlᴍmɴnᴏoᴘpʀrꜱsᴛtᴜuᴠvᴡwʏyᴢzɑaɡgıiɩiᎪaᏴbᏟcᎠdᎬeᏀgᎻhᎥiᎫjᏦkᏞlᎷmᏢpᎡrᏒrᏚsᎢtᏙvᎳwᏃzꓮaꓐbꓚcꓓdꓰeꓝfꓖgꓧhꓲiꓙjꓗkꓡlꓟmꓠnꓳoꓑpꓣrꓢsꓔtꓴuꓦvꓪwꓫxꓬyꓜz❨(❩)❪(❫)⟮(⟯)АaВbГrЕeЅsІiЈjКkМmНhОoПnРpСcТtУyХxѴvҺhӀlԀdԚqԜwҮyΑaΒbΕeΖzΗhΙiΚkΜmΝvΟoΡpΤtΥyΧxՕoՈnՑgՀhՍuԶqꞮiƦrⱭaꞬgƖiꭺaᏼbꮯcꭰdꭼeꮐgꮋhꭵiꭻjꮶkꮮlꮇmꮲpꭱrꮢrꮪsꭲtꮩvꮃwꮓz";
const LATIN_FOR = new Map([...LOOKALIKES.matchAll(/(.)(.)/gsu)].map(([, letter, latin]) => [letter, latin]));

/** Whether a character has a non-zero canonical combining class (Python's
 * ``unicodedata.combining``, which the server's names check drops), told by canonical ordering:
 * NFD moves such a mark before a following mark of a lower class (U+0334, class 1) and after a
 * preceding one of a higher class (U+0301, class 230); a character of class 0 stays put. */
const combining = (c) => /\p{M}/u.test(c) && (`${c}\u0334`.normalize("NFD") !== `${c}\u0334` || `\u0301${c}`.normalize("NFD") !== `\u0301${c}`);

/** Each taken seat's name as the table shows it: a name that several seats share (bots of one
 * level, or two players who chose one name, however written, in whatever script's look-alike
 * letters) carries its seat's number, so that one seat never passes for another. Seats: the
 * view's or the lobby's (seat, displayName). */
export function seatLabels(seats) {
  const read = (text) => [...text].map((letter) => LATIN_FOR.get(letter) ?? letter).join("");
  const folded = (name) => read(read(name).replace(SHOWING_NOTHING, "").normalize("NFKC").split(/\s+/).filter(Boolean).join(" ").toLowerCase());
  // Accents and dots dropped (as the server's ``letters`` drops them): "José" reads as "Jose".
  const fold = (name) => read([...folded(name).normalize("NFD")].filter((c) => !combining(c)).join(""));
  const count = new Map();
  for (const s of seats) if (s.displayName) count.set(fold(s.displayName), (count.get(fold(s.displayName)) ?? 0) + 1);
  return Object.fromEntries(seats.map((s) => {
    const seat = s.seat ?? 0;
    if (!s.displayName) return [seat, `seat ${seat}`];
    return [seat, count.get(fold(s.displayName)) > 1 ? `${s.displayName} (seat ${seat})` : s.displayName];
  }));
}

/** A guard that runs one action at a time: a call while one runs joins it rather than start its
 * own, so that a double click sends one request (one seat taken, one table made). */
export function oneAtATime() {
  let running = null;
  return (action) => (running ??= action().finally(() => { running = null; }));
}
