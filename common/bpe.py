"""Pieces of GPT-2's byte-level BPE that several files use: the bytes-to-unicode table and one merge step.

Reference code (the tokenizer stage's): stages/tokenizer/reference.py and its decoys import it, and so does the
generate stage's train.py, which trained the course's tokenizer in GPT-2's layout.

References: openai/gpt-2 src/encoder.py (`bytes_to_unicode`, `Encoder.bpe`).
"""


def bytes_to_unicode():
    """Each byte 0-255 as a printable character: printable Latin-1 bytes as themselves, the rest from U+0100 up."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:  # control characters, space, DEL, NBSP, soft hyphen
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, [chr(c) for c in cs], strict=True))  # 32 (space) -> "Ġ", 10 (newline) -> "Ċ"


def merge(parts, pair):  # every occurrence of the adjacent pair, left to right, becomes one token
    merged, i = [], 0
    while i < len(parts):
        if i < len(parts) - 1 and (parts[i], parts[i + 1]) == pair:
            merged.append(parts[i] + parts[i + 1])
            i += 2
        else:
            merged.append(parts[i])
            i += 1
    return merged
