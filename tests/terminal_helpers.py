"""Drive ``hustings play`` through a pseudo-terminal, answering each prompt from what it shows."""

from __future__ import annotations

import os
import random
import re
import select
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Callable

PROMPT = re.compile(r"your move at version (\d+) \(q quits\): ")
NUMBERED = re.compile(r"^\s+\[(\d+)\] (.+?)(?:  - .*)?$", re.M)
TYPED_GROUP = re.compile(r"^  ([a-z_]+) ([A-Z_ ]+)\n {6}(.*)$", re.M)
SUGGESTED = re.compile(r"not a move: .* with that [a-z ]+: (.*)$")


@dataclass
class Transcript:
    """What the player showed, with the answers typed and the exit code."""

    text: str = ""
    answers: list[str] = field(default_factory=list)
    returncode: int | None = None
    stderr: str = ""

    def prompts(self) -> list[tuple[int, int]]:
        """(version, offset) of every prompt, in order."""
        return [(int(m.group(1)), m.start()) for m in PROMPT.finditer(self.text)]


def play_through_pty(
    argv: list[str], answer: Callable[[str], str], *, max_answers: int = 400, timeout_s: float = 150.0
) -> Transcript:
    """Run the command on a pseudo-terminal; at each prompt, type ``answer(screen so far)``."""
    master, slave = os.openpty()
    with tempfile.TemporaryFile() as err:
        process = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=err, close_fds=True)
        os.close(slave)
        out = Transcript()
        raw = ""
        answered = 0
        deadline = time.monotonic() + timeout_s
        try:
            while time.monotonic() < deadline:
                ready, _, _ = select.select([master], [], [], 0.5)
                if not ready:
                    if process.poll() is not None:
                        break
                    continue
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: the player closed the terminal
                    break
                if not chunk:
                    break
                raw += chunk.decode(errors="replace")
                out.text = raw.replace("\r", "")
                prompts = list(PROMPT.finditer(out.text))
                if len(prompts) > answered:
                    if answered >= max_answers:
                        break
                    typed = answer(out.text[: prompts[-1].end()])
                    out.answers.append(typed)
                    answered = len(prompts)
                    os.write(master, (typed + "\n").encode())
            try:
                out.returncode = process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass  # still running: killed below, returncode stays None
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=30)
            os.close(master)
        err.seek(0)
        out.stderr = err.read().decode(errors="replace")
    return out


def first_value(segment: str) -> str:
    """The first part of a hint segment such as ``7: D03 D05`` or ``5 (Pollster): 1 2``."""
    return segment.split(":", 1)[0].split(" (", 1)[0]


def menu_of(screen: str) -> str:
    """The menu under the latest prompt (from its header to the prompt)."""
    return screen[screen.rfind("Your legal moves") :]


class PartsAnswerer:
    """Answers every prompt with a legal-looking move typed as parts, read off the menu.

    Numbered moves are typed by their parts too (the menu prints them). For groups typed as
    parts it picks values from the hint; when the player names legal moves after a refusal
    ("with that …: a | b"), it types one of those.
    """

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def __call__(self, screen: str) -> str:
        tail = screen[screen.rfind("Your legal moves") :]
        last_line = tail.rstrip().splitlines()[-2] if tail.count("\n") > 1 else ""
        suggested = SUGGESTED.search(last_line)
        if suggested:
            return self.rng.choice(suggested.group(1).split(" | "))
        options = [parts for _, parts in NUMBERED.findall(tail)]
        for kind, fields, hint in TYPED_GROUP.findall(tail):
            options.append(kind + " " + self._from_hint(fields, hint))
        return self.rng.choice(options)

    def _from_hint(self, fields: str, hint: str) -> str:
        if " different " in hint:  # one repeated part: "4 different influences of: 1 2 … 9"
            count = int(hint.split()[0])
            values = hint.split(" of: ", 1)[1].split("   ")[0].split()
            return " ".join(self.rng.sample(values, count))
        if len(fields.split()) == 2:  # "7 (label): D03 D05 | 9: -"
            segment = self.rng.choice(hint.rstrip("…").split(" | "))
            return first_value(segment) + " " + self.rng.choice(segment.rsplit(": ", 1)[1].split())
        # "field: a, b; other: c, d"
        return " ".join(self.rng.choice(seg.split(": ", 1)[1].rstrip("…").split(", ")) for seg in hint.split("; "))


CLI = [sys.executable, "-m", "hustings.cli"]
