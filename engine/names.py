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


# Letters of other scripts that read as a Latin letter, case-folded first (so that capitals are
# covered by their small letters: Cyrillic Н folds to н, which reads as Latin H folded, h). A
# player who wrote a server bot's name, or another player's, with a Cyrillic а or a Greek Ο for
# the Latin letter passed for them on every page. The letters of Unicode's confusables (UTS #39)
# that stand for a Latin letter alone; the page's copy (service/static/play/dom.js) is checked
# against this one.
LOOKALIKES = {
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ѕ": "s", "і": "i", "ј": "j", "к": "k", "м": "m", "н": "h",
    "о": "o", "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "һ": "h", "ӏ": "l", "ԁ": "d",
    "ԛ": "q", "ԝ": "w", "ү": "y",
    # Latin letters of other forms
    "ɡ": "g", "ı": "i",
    # Greek
    "α": "a", "β": "b", "ε": "e", "ζ": "z", "η": "h", "ι": "i", "κ": "k", "μ": "m", "ν": "v",
    "ο": "o", "ρ": "p", "τ": "t", "υ": "y", "χ": "x",
}
_LOOKALIKES = str.maketrans(LOOKALIKES)


def skeleton(name: str) -> str:
    """``name`` as it reads: ``folded``, with each letter of another script that reads as a Latin
    one (``LOOKALIKES``) taken for it, so that "Bоt" with a Cyrillic о and "Bot" compare equal."""
    return folded(name).translate(_LOOKALIKES)

