"""GPT-2's byte-level BPE tokenizer: text to token ids and back.

Encoding: the text is cut into pieces by GPT-2's pre-tokenisation pattern (contractions, words with their leading
space, numbers, punctuation runs, whitespace); each piece's UTF-8 bytes are written as printable characters through
the bytes-to-unicode table (a space is "Ġ", a newline "Ċ"); then merges are applied by rank, the lowest-ranked
adjacent pair first, until no adjacent pair is a merge; each resulting token is looked up in the vocabulary.
Decoding joins the tokens, maps each character back to its byte, and decodes the bytes as UTF-8 once, at the end.

`vocab` is vocab.json (token -> id); `merges` is merges.txt as a list of pairs in rank order.

The bytes-to-unicode table and the merge step are common/bpe.py's.

References: openai/gpt-2 src/encoder.py (`bytes_to_unicode`, `get_pairs`, `Encoder.bpe`, `encode`, `decode`);
Sennrich et al. (2016), "Neural Machine Translation of Rare Words with Subword Units"; Radford et al. (2019),
section 2.2, "Input Representation"; Hugging Face tokenizers' ByteLevel pre-tokenizer and BPE model.
"""

import numpy as np
import regex

from common.bpe import bytes_to_unicode, merge

# contractions | letters | numbers | other symbols, each with at most one leading space | whitespace not followed
# by a non-space (so a run of spaces leaves its last one to the next word) | any other whitespace
PAT = regex.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")


def bpe(word, ranks):  # a piece's characters -> its tokens
    parts = list(word)
    while len(parts) > 1:
        pairs = set(zip(parts[:-1], parts[1:], strict=True))  # adjacent pairs
        best = min(pairs, key=lambda pair: ranks.get(pair, float("inf")))  # the earliest merge present
        if best not in ranks:
            break
        parts = merge(parts, best)  # every occurrence, left to right
    return parts


def bpe_encode(text, vocab, merges):
    byte_encoder = bytes_to_unicode()
    ranks = {tuple(pair): rank for rank, pair in enumerate(merges)}  # (a, b) -> rank
    ids = []
    for piece in PAT.findall(text):
        word = "".join(byte_encoder[b] for b in piece.encode("utf-8"))  # " café" -> "ĠcafÃ©"
        ids.extend(vocab[token] for token in bpe(word, ranks))
    return np.array(ids, dtype=np.int64)  # [n_tokens]


def bpe_decode(ids, vocab):
    byte_decoder = {c: b for b, c in bytes_to_unicode().items()}
    tokens = {i: token for token, i in vocab.items()}  # id -> token
    text = "".join(tokens[int(i)] for i in ids)
    return bytes(byte_decoder[c] for c in text).decode("utf-8", errors="replace")  # bytes, then UTF-8 once
