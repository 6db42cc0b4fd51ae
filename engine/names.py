"""Names that players choose (a seat's display name, a Wahlspiel party's name). Every seat and
spectator reads them in views, logs and the lobby, so a name may neither draw over the lines
around it nor pass for another name through characters that show nothing."""

from __future__ import annotations

import unicodedata

# Marks of a non-zero combining class in a row: Vietnamese stacks two on one letter ("ệ" written
# as e, dot below, circumflex); forty stacked marks drew over the whole table.
MAX_CLASSED_MARKS_IN_A_ROW = 2
# Non-spacing and enclosing marks (Unicode categories Mn and Me) on one letter, whatever their
# combining class: Tibetan writes three under one letter (སྒྲུབ), Thai a vowel and a sign over one
# (สมศักดิ์). A mark of class 0 (U+034F COMBINING GRAPHEME JOINER, which shows nothing; Thai
# MAITAIKHU) between marks no longer starts the count again. Spacing marks (Mc) take room of their
# own beside the letter: they neither count nor end a run.
MAX_MARKS_ON_A_LETTER = 4
# Printable characters that show nothing: Unicode's default-ignorable code points that
# ``str.isprintable`` lets through (the others are refused as unprintable), and the blank Braille
# pattern. A name is compared with others without them, and must show something beside them.
_SHOWING_NOTHING = (
    (0x034F, 0x034F),  # COMBINING GRAPHEME JOINER
    (0x115F, 0x1160),  # HANGUL CHOSEONG and JUNGSEONG FILLER
    (0x17B4, 0x17B5),  # KHMER VOWEL INHERENT AQ and AA
    (0x180B, 0x180F),  # MONGOLIAN FREE VARIATION SELECTORS (U+180E is refused as unprintable)
    (0x2800, 0x2800),  # BRAILLE PATTERN BLANK
    (0x3164, 0x3164),  # HANGUL FILLER
    (0xFE00, 0xFE0F),  # VARIATION SELECTORS
    (0xFFA0, 0xFFA0),  # HALFWIDTH HANGUL FILLER
    (0xE0100, 0xE01EF),  # VARIATION SELECTORS SUPPLEMENT
)
_MARKS = frozenset({"Mn", "Me"})


def _shows_nothing(character: str) -> bool:
    point = ord(character)
    return any(low <= point <= high for low, high in _SHOWING_NOTHING)


def stacked_too_high(name: str) -> bool:
    """Whether ``name`` stacks more marks on one letter than ``MAX_CLASSED_MARKS_IN_A_ROW`` of a
    non-zero combining class or ``MAX_MARKS_ON_A_LETTER`` in all."""
    classed = marks = 0
    for character in name:
        classed = classed + 1 if unicodedata.combining(character) else 0
        category = unicodedata.category(character)
        if category in _MARKS:
            marks += 1
        elif category != "Mc":
            marks = 0
        if classed > MAX_CLASSED_MARKS_IN_A_ROW or marks > MAX_MARKS_ON_A_LETTER:
            return True
    return False


def shown(name: str) -> str:
    """``name`` without the characters that show nothing."""
    return "".join(character for character in name if not _shows_nothing(character))


def blank(name: str) -> bool:
    """Whether ``name`` shows nothing: blanks and characters that show nothing alone."""
    return not shown(name).strip()


def folded(name: str) -> str:
    """``name`` as it is compared with another: what it shows, NFKC-normalised, its blanks
    trimmed and each run of them one space (a page shows them so), and case-folded: "Ｂｏｔ",
    "Bot" with a variation selector and "Bot " with one after the blank all read as "bot"."""
    return " ".join(unicodedata.normalize("NFKC", shown(name)).split()).casefold()


# Characters that read as one Latin letter or a parenthesis, and are not it: letters of other
# scripts (Cyrillic, Greek, Armenian, Cherokee, Lisu) and Latin's own small capitals and IPA
# letters, from Unicode's confusables (UTS #39). A player who wrote a server bot's name, or
# another player's, with a Cyrillic а or a Cherokee Ᏼ for the Latin letter passed for them on
# every page. Each letter stands with its other case too (``_BOTH_CASES``), as the page and the
# server fold case apart (Python's casefold leaves Cherokee capitals as they are, JavaScript's
# toLowerCase makes them small); the page's copy (service/static/play/dom.js) is checked against
# this one. A word that mixes Latin letters with another script's is refused anyway
# (``mixes_scripts``): the table is for names written wholly in look-alikes.
_READS_AS = {
    # Cyrillic
    "а": "a", "в": "b", "г": "r", "е": "e", "ѕ": "s", "і": "i", "ј": "j", "к": "k", "м": "m",
    "н": "h", "о": "o", "п": "n", "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "ѵ": "v",
    "һ": "h", "ӏ": "l", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ү": "y",
    # Greek
    "α": "a", "β": "b", "ε": "e", "ζ": "z", "η": "h", "ι": "i", "κ": "k", "μ": "m", "ν": "v",
    "ο": "o", "ρ": "p", "τ": "t", "υ": "y", "χ": "x",
    # Armenian
    "օ": "o", "ո": "n", "ց": "g", "հ": "h", "ս": "u", "զ": "q",
    # Latin small capitals and letters of the phonetic alphabet
    "ᴀ": "a", "ʙ": "b", "ᴄ": "c", "ᴅ": "d", "ᴇ": "e", "ꜰ": "f", "ɢ": "g", "ʜ": "h", "ɪ": "i",
    "ᴊ": "j", "ᴋ": "k", "ʟ": "l", "ᴍ": "m", "ɴ": "n", "ᴏ": "o", "ᴘ": "p", "ʀ": "r", "ꜱ": "s",
    "ᴛ": "t", "ᴜ": "u", "ᴠ": "v", "ᴡ": "w", "ʏ": "y", "ᴢ": "z", "ɑ": "a", "ɡ": "g", "ı": "i",
    "ɩ": "i",
    # Cherokee
    "Ꭺ": "a", "Ᏼ": "b", "Ꮯ": "c", "Ꭰ": "d", "Ꭼ": "e", "Ꮐ": "g", "Ꮋ": "h", "Ꭵ": "i", "Ꭻ": "j",
    "Ꮶ": "k", "Ꮮ": "l", "Ꮇ": "m", "Ꮲ": "p", "Ꭱ": "r", "Ꮢ": "r", "Ꮪ": "s", "Ꭲ": "t", "Ꮩ": "v",
    "Ꮃ": "w", "Ꮓ": "z",
    # Lisu
    "ꓮ": "a", "ꓐ": "b", "ꓚ": "c", "ꓓ": "d", "ꓰ": "e", "ꓝ": "f", "ꓖ": "g", "ꓧ": "h", "ꓲ": "i",
    "ꓙ": "j", "ꓗ": "k", "ꓡ": "l", "ꓟ": "m", "ꓠ": "n", "ꓳ": "o", "ꓑ": "p", "ꓣ": "r", "ꓢ": "s",
    "ꓔ": "t", "ꓴ": "u", "ꓦ": "v", "ꓪ": "w", "ꓫ": "x", "ꓬ": "y", "ꓜ": "z",
    # Parentheses
    "❨": "(", "❩": ")", "❪": "(", "❫": ")", "⟮": "(", "⟯": ")",
}


def _both_cases(table: dict[str, str]) -> dict[str, str]:
    both = dict(table)
    for letter, latin in table.items():
        for other in (letter.lower(), letter.upper()):
            if len(other) == 1 and other != letter and not other.isascii():
                both.setdefault(other, latin)
    return both


LOOKALIKES = _both_cases(_READS_AS)
_LOOKALIKES = str.maketrans(LOOKALIKES)


def skeleton(name: str) -> str:
    """``name`` as it reads: ``folded``, each character that reads as a Latin letter or a
    parenthesis (``LOOKALIKES``) taken for it, before case is folded and after, so that "Bоt"
    with a Cyrillic о and "Bot" compare equal."""
    return folded(name.translate(_LOOKALIKES)).translate(_LOOKALIKES)


# Scripts that may share a word with Latin letters: Japanese and Chinese writing mixes them
# (UTS #39's "highly restrictive" level). Any other mix is taken for letters passing for others.
_MIXES_ALLOWED = (
    frozenset({"LATIN", "CJK", "HIRAGANA", "KATAKANA", "KATAKANA-HIRAGANA"}),
    frozenset({"LATIN", "CJK", "BOPOMOFO"}),
    frozenset({"LATIN", "CJK", "HANGUL"}),
)
# Letters whose names do not begin with their script's, and belong to none in particular.
_NO_SCRIPT = frozenset({"MODIFIER", "IDEOGRAPHIC"})


def _script(letter: str) -> str | None:
    """The script of a letter, as the first word of its Unicode name (LATIN, CYRILLIC, CJK, ...)."""
    first = unicodedata.name(letter, "").split(" ", 1)[0]
    return None if not first or first in _NO_SCRIPT else first


def mixes_scripts(name: str) -> bool:
    """Whether a word of ``name`` (a run of letters and marks) holds letters of several scripts
    other than a mix that writing uses (``_MIXES_ALLOWED``): "Bоt" with a Cyrillic о, "ꓐot"
    with a Lisu letter, but not "Tokyo東京" or "Zoë"."""
    word: set[str] = set()
    for character in unicodedata.normalize("NFKC", shown(name)) + " ":
        category = unicodedata.category(character)
        if category[0] == "L":
            script = _script(character)
            if script is not None:
                word.add(script)
        elif category[0] != "M":
            if len(word) > 1 and not any(word <= allowed for allowed in _MIXES_ALLOWED):
                return True
            word = set()
    return False


# Digits that read as letters, in a name's letters alone (``letters``): "B0t" reads as "Bot".
_DIGITS_READ_AS = str.maketrans({"0": "o", "1": "l", "3": "e", "5": "s", "8": "b"})


def letters(name: str) -> str:
    """What ``name`` reads as in Latin letters alone (``skeleton``, its letters' accents and dots
    dropped, digits that read as letters taken for them, everything else dropped): "Bot(random)",
    "Bot ( random )", "B0t [rand0m]." and "Bọt (randọm)" all read as "botrandom"."""
    bare = "".join(c for c in unicodedata.normalize("NFKD", skeleton(name)) if not unicodedata.combining(c))
    return "".join(c for c in bare.translate(_DIGITS_READ_AS) if "a" <= c <= "z")

