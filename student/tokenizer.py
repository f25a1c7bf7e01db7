"""Stage tokenizer: GPT-2's tokenizer, byte-level BPE.

Instructions: `python -m grader show tokenizer`    Grade: `python -m grader --stage tokenizer --watch`
Tolerance: |yours - expected| <= 0 + 0 * |expected|, elementwise.
"""

import numpy as np


def run_bpe_encode(text, vocab, merges):
    """GPT-2's byte-level BPE: text to token ids.

    text:   a str (any Unicode, possibly empty)
    vocab:  dict[str, int], vocab.json: token (bytes written with the bytes-to-unicode table) -> id
    merges: list of pairs [a, b], merges.txt in rank order (the first pair is merged first)
    Returns [n_tokens] int64:
        for each piece that GPT-2's pattern finds in text:
            write the piece's UTF-8 bytes as characters with the bytes-to-unicode table (" " -> "Ġ")
            merge, while any adjacent pair is in merges: the pair of lowest rank, all its occurrences
            look each resulting token up in vocab
    """
    raise NotImplementedError("run_bpe_encode is not written yet: see `python -m grader show tokenizer`")


def run_bpe_decode(ids, vocab):
    """Token ids back to text.

    ids:   [n_tokens] int64
    vocab: dict[str, int], as for run_bpe_encode
    Returns the str: the tokens joined, each character turned back into its byte, and all the bytes decoded as
    UTF-8 at once, errors="replace".
    """
    raise NotImplementedError("run_bpe_decode is not written yet: see `python -m grader show tokenizer`")
