"""Every way a rank file's tokens split into two tokens: the pair table of tiktoken's merge rule.

tiktoken joins two adjacent pieces whenever their bytes together are a token, the lowest-ranked
first. So the pairs that can join are all the splits `t = u + v` of a token `t` into tokens
`u` and `v`, and the pair (u, v) joins at the rank of `t`. Listed once, they let the numpy
batch merge (merge_batch) run tiktoken's rule on many chunks at once.

Checking every split of 100,000 tokens in Python takes 0.2 s; here each substring gets a
polynomial hash from one cumulative sum, and candidates found by hash are confirmed byte by
byte, so the table is exact. It still takes 0.1 s (cl100k_base) to 0.3 s (o200k_base), a large
part of encoding 10 MB, so it is kept in the user's cache (see cache.py) by the file's hash.
"""

from __future__ import annotations

import numpy as np

from explorer.core.algorithms.merge_batch import IntTable, ranges
from explorer.core.cache import read_entry, write_entry

_MAGIC = b"TXJOINS1\n"  # the cache entry's (write_entry): then little-endian int32 triples; bump on change


def cached_joinable_pairs(ranks: dict[bytes, int], sha256: str) -> np.ndarray:
    """`joinable_pairs(ranks)` of the rank file with this hash: read from the user's cache, or
    computed and stored there. A missing, damaged or unwritable entry costs a recomputation."""
    name = f"joins-{sha256}.bin"
    body = read_entry(name, _MAGIC)
    if body is not None and len(body) % 12 == 0:
        return np.frombuffer(body, dtype="<i4").reshape(-1, 3).astype(np.int64)
    joins = joinable_pairs(ranks)
    write_entry(name, _MAGIC, joins.astype("<i4").tobytes())
    return joins

_BASE = np.uint64(0x100000001B3)  # odd, so invertible modulo 2**64
_LENGTH = np.uint64(0x9E3779B97F4A7C15)  # mixes a substring's length into its key


def joinable_pairs(ranks: dict[bytes, int]) -> np.ndarray:
    """(left id, right id, joined id) for every split of a token into two tokens, as an (n, 3)
    int64 array; the joined id is also the pair's rank.

    >>> joinable_pairs({b"a": 0, b"b": 1, b"ab": 2, b"bb": 3, b"abb": 4}).tolist()
    [[0, 1, 2], [1, 1, 3], [0, 3, 4], [2, 1, 4]]
    """
    tokens = list(ranks)
    ids = np.fromiter(ranks.values(), dtype=np.int64, count=len(tokens))
    lengths = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
    flat = np.frombuffer(b"".join(tokens), dtype=np.uint8)
    starts = np.cumsum(lengths) - lengths
    prefix, unpower = _prefix_hashes(flat)

    def keys(begin: np.ndarray, end: np.ndarray) -> np.ndarray:
        """The key of each substring flat[begin:end]: its hash as if it began at 0, and its length."""
        with np.errstate(over="ignore"):
            return (prefix[end] - prefix[begin]) * unpower[begin] + (end - begin).astype(np.uint64) * _LENGTH

    whole = keys(starts, starts + lengths).view(np.int64)
    ordered = np.sort(whole)
    if (ordered[1:] == ordered[:-1]).any():
        return _pairs_in_python(ranks)  # two tokens share a key: never seen, but stay exact
    token_with = IntTable(whole, np.arange(len(tokens)), -1)  # key -> index in `tokens`

    # Every split: token `of`, cut `cut` bytes from its start; the left part first, as fewer
    # are tokens.
    splits = np.maximum(lengths - 1, 0)
    of = np.repeat(np.arange(len(tokens)), splits)
    cut = ranges(np.ones(len(tokens), dtype=np.int64), splits)
    left = token_with(keys(starts[of], starts[of] + cut).view(np.int64))
    found = left >= 0
    of, cut, left = of[found], cut[found], left[found]
    right = token_with(keys(starts[of] + cut, starts[of] + lengths[of]).view(np.int64))
    found = right >= 0
    of, cut, left, right = of[found], cut[found], left[found], right[found]
    same = _same_bytes(flat, starts, lengths, of, cut, left, right)
    of, left, right = of[same], left[same], right[same]
    return np.stack((ids[left], ids[right], ids[of]), axis=1)


def _prefix_hashes(flat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """prefix[i] = sum of flat[j] * BASE**j for j < i, and unpower[i] = BASE**-i, modulo 2**64:
    then (prefix[e] - prefix[b]) * unpower[b] hashes flat[b:e] wherever it sits."""
    inverse = pow(int(_BASE), -1, 1 << 64)
    powers = np.empty(len(flat) + 1, dtype=np.uint64)
    unpower = np.empty(len(flat) + 1, dtype=np.uint64)
    powers[0] = unpower[0] = 1
    powers[1:] = _BASE
    unpower[1:] = np.uint64(inverse)
    with np.errstate(over="ignore"):
        np.multiply.accumulate(powers, out=powers)
        np.multiply.accumulate(unpower, out=unpower)
        prefix = np.zeros(len(flat) + 1, dtype=np.uint64)
        np.cumsum(flat.astype(np.uint64) * powers[:-1], out=prefix[1:])
    return prefix, unpower


def _same_bytes(flat: np.ndarray, starts: np.ndarray, lengths: np.ndarray, of: np.ndarray, cut: np.ndarray,
                left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Whether the bytes of left + right are those of `of`, for each candidate: a hash match is
    confirmed before it can change an encoding. (Both parts are at least a byte long.)"""
    if not len(of):
        return np.zeros(0, dtype=bool)
    rest = lengths[of] - cut
    same_left = flat[ranges(starts[left], cut)] == flat[ranges(starts[of], cut)]
    same_right = flat[ranges(starts[right], rest)] == flat[ranges(starts[of] + cut, rest)]
    return (np.logical_and.reduceat(same_left, np.cumsum(cut) - cut)
            & np.logical_and.reduceat(same_right, np.cumsum(rest) - rest))


def _pairs_in_python(ranks: dict[bytes, int]) -> np.ndarray:
    """The same table, one split at a time."""
    get = ranks.get
    pairs = [(left, right, joined) for token, joined in ranks.items() for cut in range(1, len(token))
             if (left := get(token[:cut])) is not None and (right := get(token[cut:])) is not None]
    return np.array(pairs, dtype=np.int64).reshape(-1, 3)
