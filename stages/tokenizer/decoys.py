"""Known-wrong tokenizers: if a learner's output matches one of these, the grader names the mistake."""

from collections import Counter

import numpy as np
import regex

from common.bpe import bytes_to_unicode, merge

PAT = regex.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")
PAT_NO_LOOKAHEAD = regex.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+""")
WHITESPACE_ONLY = regex.compile(r" ?\S+|\s+(?!\S)|\s+")  # words with their space, but no letter/digit/symbol split


def _bpe(word, ranks):
    parts = list(word)
    while len(parts) > 1:
        best = min(zip(parts[:-1], parts[1:], strict=True), key=lambda p: ranks.get(p, float("inf")))
        if best not in ranks:
            break
        parts = merge(parts, best)
    return parts


def _encode(pieces, vocab, merges):
    enc = bytes_to_unicode()
    ranks = {tuple(p): r for r, p in enumerate(merges)}
    return np.array([vocab[t] for piece in pieces for t in _bpe("".join(enc[b] for b in piece.encode("utf-8")), ranks)],
                    dtype=np.int64)


def merge_by_frequency(text, vocab, merges):
    """BPE training's rule at encoding time: merge the pair (among merges.txt's) seen most often in the text."""
    enc = bytes_to_unicode()
    known = {tuple(p) for p in merges}
    words = [list("".join(enc[b] for b in piece.encode("utf-8"))) for piece in PAT.findall(text)]
    while True:
        counts = Counter(p for w in words for p in zip(w[:-1], w[1:], strict=True) if p in known)
        if not counts:
            break
        best = counts.most_common(1)[0][0]  # ties: the pair seen first
        words = [merge(w, best) for w in words]
    return np.array([vocab[t] for w in words for t in w], dtype=np.int64)


def split_on_whitespace(text, vocab, merges):
    """Pieces are words with their leading space, but letters, digits and punctuation are not told apart."""
    return _encode(WHITESPACE_ONLY.findall(text), vocab, merges)


def spaces_not_left_to_next_word(text, vocab, merges):
    r"""The pattern without `\s+(?!\S)`: a run of spaces takes the space the next word should start with."""
    return _encode(PAT_NO_LOOKAHEAD.findall(text), vocab, merges)


def utf8_per_token(ids, vocab):
    """Each token's bytes decoded on their own: a character split across tokens turns into U+FFFD."""
    dec = {c: b for b, c in bytes_to_unicode().items()}
    tokens = {i: t for t, i in vocab.items()}
    return "".join(bytes(dec[c] for c in tokens[int(i)]).decode("utf-8", errors="replace") for i in ids)


def no_byte_decoder(ids, vocab):
    """The tokens joined as they are: 'Ġ' for spaces, 'Ċ' for newlines, 'Ã©' for é."""
    tokens = {i: t for t, i in vocab.items()}
    return "".join(tokens[int(i)] for i in ids)
