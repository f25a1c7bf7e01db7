"""Which learners' files are suspiciously alike: winnowed fingerprints of normalised tokens, compared cohort-wide.

The method is MOSS's (Schleimer, Wilkerson, Aiken, "Winnowing: local algorithms for document fingerprinting",
SIGMOD 2003): each file becomes a token stream in which every name is the same token (so renaming variables or
functions changes nothing), comments, blank lines and layout are gone, and strings are one token; the stream's
k-grams are hashed and, from each window of w hashes, the smallest is kept. Two files share a fingerprint where
they share a k-gram. The stub every learner starts from is boilerplate and never counts, and fingerprints that
half the cohort shares are the way everyone writes a line of numpy, not copying.

Written here rather than taken from PyPI: copydetect (the maintained winnowing package) needs matplotlib, tqdm
and pygments at run time, and the grader ships itself with its requirements into every learner's handout;
pycode_similar (last released 2020) compares ASTs function by function with difflib and is built on ast.Str,
deprecated since Python 3.8. Python's own tokenize is all this needs, and it never runs the learner's code.
"""

from __future__ import annotations

import hashlib
import io
import keyword
import time
import tokenize
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path

from grader.instructor.submissions import MAX_FILE_BYTES
from grader.results.cohort import Similar

K = 10  # tokens per k-gram: shorter matches are coincidence
W = 6  # winnowing window: any match of K + W - 1 tokens or more shares a fingerprint
THRESHOLD = 0.6  # share of the smaller submission's fingerprints two submissions must share to be flagged
MIN_SHARED = 12  # and at least this many (tiny files are alike by necessity)
COMMON = 0.5  # a fingerprint found in more than this share of the cohort is how everyone writes it
# What one submission may cost (the grader's time after its jail has ended, the gradebook's size, every report's
# memory): the course's twelve references are 36 KB and 1,425 fingerprints in all.
FILE_CHARS = 64 << 10  # characters of one file read (the rest of a longer file is not compared)
SUBMISSION_CHARS = 128 << 10  # characters read of one submission, its stage files first: about a second at most
MAX_PRINTS = 4096  # fingerprints kept of one submission: each file's smallest, as long as they last
# Python's tokenize rescans the rest of a line after each character it cannot read (an unterminated string): a
# 64 KiB line took 100 s (red team round 6). Lines are compared up to LINE_CHARS, and one submission's tokens are
# read for at most SECONDS.
LINE_CHARS = 256
RAW_CHARS = MAX_FILE_BYTES  # a file is read whole (intake's cap) and condensed before the character caps apply
SECONDS = 1.0


def tokens(source: str, deadline: float = float("inf")) -> list[str]:
    """The file as normalised tokens: names as `V` (keywords and attribute names kept), strings as `S`.

    Each line is read up to LINE_CHARS, and the tokens up to `deadline` (time.monotonic()).
    """
    out: list[str] = []
    after_dot = False
    lines = io.StringIO("".join(line if len(line) <= LINE_CHARS else line[:LINE_CHARS] + "\n"
                                for line in source.splitlines(keepends=True)))
    try:
        for tok in tokenize.generate_tokens(lines.readline):
            if len(out) % 1024 == 0 and time.monotonic() > deadline:
                break
            if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER):
                continue
            if tok.type == tokenize.NAME:
                out.append(tok.string if keyword.iskeyword(tok.string) or after_dot else "V")
            elif tok.type == tokenize.STRING or tok.type == getattr(tokenize, "FSTRING_START", -1):
                out.append("S")
            elif tok.type == tokenize.NEWLINE:
                out.append(";")
            elif tok.type in (tokenize.INDENT, tokenize.DEDENT):
                out.append("{" if tok.type == tokenize.INDENT else "}")
            else:
                out.append(tok.string)
            after_dot = tok.string == "."
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass  # a file that does not tokenize to the end is compared up to where it stops
    return out


def _condensed(source: str) -> str:
    """The file as compared: each line cut to LINE_CHARS, comment-only and blank lines left out.

    Before the character caps apply: red team round 7 hid all of a stage file's code behind a 66 KB comment.
    """
    kept = (line[:LINE_CHARS] for line in source.splitlines())
    return "".join(line + "\n" for line in kept if line.strip() and not line.lstrip().startswith("#"))


def _hash(gram: list[str]) -> int:
    return int.from_bytes(hashlib.blake2b("\x00".join(gram).encode(), digest_size=8).digest(), "little",
                          signed=True)


def fingerprints(source: str, deadline: float = float("inf")) -> list[int]:
    """The winnowed fingerprints of a source file, sorted and distinct."""
    toks = tokens(source, deadline)
    hashes = [_hash(toks[i:i + K]) for i in range(len(toks) - K + 1)]
    if len(hashes) <= W:
        return sorted(set(hashes))
    return sorted({min(hashes[i:i + W]) for i in range(len(hashes) - W + 1)})


def of_files(root: Path, written: Iterable[str], first: Iterable[str] = ()) -> dict[str, list[int]]:
    """Fingerprints of each file graded (paths relative to root, e.g. student/gelu.py), within the caps above.

    `first` (the stage files) are read before the helpers. Where the cap cuts a file's fingerprints, its smallest
    are kept, so of two copies of one file the one cut more keeps a part of what the other keeps.
    """
    stage_files = set(first)
    out = {}
    chars, prints = SUBMISSION_CHARS, MAX_PRINTS
    deadline = time.monotonic() + SECONDS
    for rel in sorted(written, key=lambda rel: (rel not in stage_files, rel)):
        if chars <= 0 or prints <= 0:
            break
        try:
            with open(root / rel, encoding="utf-8", errors="replace") as f:
                source = _condensed(f.read(RAW_CHARS))[:min(FILE_CHARS, chars)]
        except OSError:
            continue
        chars -= len(source)
        out[rel] = fingerprints(source, deadline)[:prints]
        prints -= len(out[rel])
    return out


def pairs(cohort: dict[str, dict[str, list[int]]], boilerplate: dict[str, list[int]],
          threshold: float = THRESHOLD, min_shared: int = MIN_SHARED) -> list[Similar]:
    """Every pair of submissions at or above the threshold, the most alike first.

    Submissions are compared whole, as MOSS compares them: a fingerprint two share counts whichever of their files
    holds it, so code moved into a helper of another name is found too (red team round 7). The files named are
    those of the first of the pair that hold the most shared fingerprints.
    """
    common_cut = max(2, int(COMMON * len(cohort)))
    starter = {h for hs in boilerplate.values() for h in hs}
    where: dict[str, dict[int, set[str]]] = {}  # submission -> fingerprint -> its files that hold it
    for sub, files in cohort.items():
        held: dict[int, set[str]] = defaultdict(set)
        for f, hs in files.items():
            for h in hs:
                if h not in starter:
                    held[h].add(f)
        where[sub] = held
    frequency = Counter(h for held in where.values() for h in held)
    index: dict[int, list[str]] = defaultdict(list)
    for sub, held in where.items():
        for h in held:
            if frequency[h] <= common_cut:  # what half the cohort writes is how everyone writes it
                index[h].append(sub)
    shared: Counter[tuple[str, str]] = Counter()
    holding: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for h, subs in index.items():
        for i, a in enumerate(subs):
            for b in subs[i + 1:]:
                key = (a, b) if a < b else (b, a)
                shared[key] += 1
                holding[key].update(where[key[0]][h])
    size = {sub: sum(1 for h in held if frequency[h] <= common_cut) for sub, held in where.items()}
    out = []
    for (a, b), n in shared.items():
        score = n / max(1, min(size[a], size[b]))
        if n >= min_shared and score >= threshold:
            out.append(Similar(a, b, round(score, 3), n, [f for f, _ in holding[a, b].most_common(3)]))
    return sorted(out, key=lambda p: (-p.score, p.a, p.b))
