"""Byte-level BPE training, incremental and streaming.

The structure follows Hugging Face tokenizers' `trainer.rs`, so the merges are identical to
its `BpeTrainer` (same split pattern, all 256 bytes as the initial alphabet):

1. count each distinct chunk once;
2. turn chunks into byte ids and count adjacent pairs, remembering which chunks hold each pair;
3. repeatedly pop the most frequent pair from a lazy heap, merge it only in the chunks that hold
   it, and update the counts of the pairs around each merge.

Two rules say which pair wins a tie (`pair_queue`): "hf" (the default) as Hugging Face does, the
smaller pair of ids in its id space, where the special tokens come first, then the 256 byte
characters in code-point order (see `bytelevel.hf_byte_order`); "minbpe" as the tutorials and
minbpe do, the pair counted first, with a fresh id for every merge. Each merge records its tie, if any (`Tie`).

Special tokens are in the vocabulary from the start, as in Hugging Face: a merge whose token is
spelt like a special token (`to_chars(bytes) == special`, e.g. `th` or `<|endoftext|>`) takes no
new slot of `vocab_size`, sorts first on ties, and later merges build on it. Special strings in
the training text are not split out: they are trained on like any other text, as HF does.

Id layout (ours; `special_token_ids`): bytes are ids 0-255, each merge that makes new bytes the
next id; a special token spelt like a byte or a merged token shares that id (one string, one id,
as in a tokenizer.json), and the other special tokens follow the last merge. Hugging Face numbers
the same tokens differently (specials, then bytes by code point, then merges), with the same
vocabulary size and the same tokens sharing an id.

Training yields one `Merge` record per merge, so callers can stream, step, pause and cancel.
"""

from __future__ import annotations

import ctypes
from array import array
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from explorer.core.algorithms.bytelevel import from_chars, hf_byte_order
from explorer.core.algorithms.flat_words import FlatWords
from explorer.core.algorithms.pair_queue import MASK as _MASK, SHIFT as _SHIFT, FirstSeenQueue, HfQueue, Tie
from explorer.core.errors import TrainingError
from explorer.core.generators import run_to_end
from explorer.core.pretokenization.pretokenize import Pretokenizer

BYTE_VOCAB = 256
BATCH_PIECES = 1 << 14  # pieces counted at once
PAIR_BATCH_BYTES = 1 << 20  # bytes of distinct chunks whose pairs are indexed at once
LONG_TEXT = 1 << 16  # characters; a longer text is split into windows to count its chunks
Rules = Literal["hf", "minbpe"]
RULES: dict[str, str] = {
    "hf": "Hugging Face: a corpus file is read line by line; a tie goes to the smaller pair of ids",
    "minbpe": "minbpe and the tutorials: each text (a whole file) is one sequence; a tie goes to the pair counted first",
}


@dataclass(frozen=True, slots=True)
class Merge:
    """One learned merge: `left` + `right` -> `new_id`, seen `count` times."""

    rank: int  # 0 for the first merge
    left: int
    right: int
    new_id: int
    token: bytes
    count: int
    total_tokens: int  # tokens in the whole training corpus after this merge
    # Other pairs had the same count. Not part of equality: the same merge, however much of its tie was recorded.
    tie: Tie | None = field(default=None, compare=False)

    def __reduce__(self) -> tuple[type[Merge], tuple[object, ...]]:
        """Pickled as its fields: a training child sends tens of thousands, and the window unpickled
        each through dataclasses' per-field `__setstate__` (2-3 ms per 512, now 1 ms)."""
        return Merge, (self.rank, self.left, self.right, self.new_id, self.token, self.count, self.total_tokens,
                       self.tie)


@dataclass(frozen=True, slots=True)
class CountProgress:
    """Progress of the counting stage: texts and characters read, distinct chunks so far."""

    texts: int
    chars: int
    distinct_chunks: int


def check_special_tokens(special_tokens: Iterable[str]) -> None:
    """Refuse an empty special token: it would be found at every position of every text."""
    if "" in special_tokens:
        raise TrainingError("a special token cannot be empty; give it some text, such as <|endoftext|>")


def check_rules(rules: str) -> None:
    if rules not in RULES:
        raise TrainingError(f"unknown training rules {rules!r}: use one of {', '.join(RULES)}")


def check_vocab_size(vocab_size: int, special_tokens: Iterable[str] = ()) -> None:
    """Refuse a vocabulary that cannot even hold the 256 bytes and the special tokens (nor an empty
    special token: the CLI, the GUI and the training run all check their settings here)."""
    special_tokens = list(special_tokens)
    check_special_tokens(special_tokens)
    specials = len(set(special_tokens))
    minimum = BYTE_VOCAB + specials
    if vocab_size < minimum:
        also = f" plus {specials} special token{'s' if specials > 1 else ''}" if specials else ""
        raise TrainingError(
            f"vocabulary size {vocab_size} is too small: byte-level BPE needs the 256 byte values{also},"
            f" so choose at least {minimum} (more to learn merges)"
        )


class BpeTrainer:
    """Counts chunks from texts, then learns merges one at a time.

    >>> trainer = BpeTrainer(vocab_size=259, pattern="none")
    >>> trainer.add_text("aaabdaaabac")
    >>> [m.token for m in trainer.merges()]
    [b'aa', b'ab', b'aaab']
    """

    def __init__(self, vocab_size: int, pattern: str = "cl100k", special_tokens: Iterable[str] = (),
                 rules: Rules = "hf", explain_ties: bool = False) -> None:
        self.special_tokens = list(dict.fromkeys(special_tokens))
        check_vocab_size(vocab_size, self.special_tokens)
        check_rules(rules)
        self.vocab_size = vocab_size
        self.rules = rules
        # With "hf" rules, finding the pair the tutorials' rule would take in a tie costs a scan per
        # tied pair (a third more merge time on 1 MB): the window asks for it, the command line need not.
        self.explain_ties = explain_ties
        self.pretokenizer = Pretokenizer(pattern, "tokenizers")  # HF BpeTrainer is the reference
        self.chunk_counts: Counter[str] = Counter()
        self.learned = False  # `merges` has begun, and let the chunk counts go
        self.texts = 0
        self.chars = 0

    # Stage 1: count each distinct chunk once.

    def add_text(self, text: str) -> None:
        self._count(text)
        self.texts += 1
        self.chars += len(text)

    def _count(self, text: str) -> None:
        if len(text) <= LONG_TEXT:
            self.chunk_counts.update(self.pretokenizer.pieces(text))
            return
        # A whole file ("minbpe" rules): in windows, each mostly ASCII, so the regex's ASCII fast
        # path still applies; the pieces are exactly those of the whole text.
        for pieces in self.pretokenizer.iter_pieces(text):
            self.chunk_counts.update(pieces)

    def add_texts(self, texts: Iterable[str], every: int = 1 << 20) -> Iterator[CountProgress]:
        """Count the chunks of `texts`, yielding progress about every `every` characters.

        A corpus reader of plain UTF-8 files (`CorpusFiles`, `CorpusReader`) that is big enough is
        counted on several cores (`parallel_count`): the same counts, in the same order."""
        from explorer.core.algorithms import parallel_count  # here: it imports this module

        parts = parallel_count.plan(texts, self)
        if parts is not None and (yield from parallel_count.count(self, texts, parts, every)):  # type: ignore[arg-type]
            return
        # One pass where parts are not safe or do not pay, or where a part did not read: one pass
        # then reads the corpus as the reader does, and skips or reports the bad part as it does.
        yield from self.count_texts(texts, every)

    def count_texts(self, texts: Iterable[str], every: int = 1 << 20) -> Iterator[CountProgress]:
        """`add_texts` in this process, in one pass.

        The pieces of short texts (lines) are counted in batches: one `update` a line cost a tenth
        of the counting stage on 10 MB of prose."""
        pieces, update = self.pretokenizer.pieces, self.chunk_counts.update
        batch: list[str] = []
        next_report = self.chars + every
        try:
            for text in texts:
                size = len(text)
                if size <= LONG_TEXT:
                    batch += pieces(text)
                    if len(batch) >= BATCH_PIECES:
                        update(batch)
                        batch.clear()
                else:
                    update(batch)  # first: the counts keep the order chunks were first seen in
                    batch.clear()
                    self._count(text)
                self.texts += 1
                self.chars += size
                if self.chars >= next_report:
                    next_report = self.chars + every
                    update(batch)
                    batch.clear()
                    yield CountProgress(self.texts, self.chars, len(self.chunk_counts))
        finally:
            update(batch)  # also when stopped, so the counts match `texts` and `chars`
        yield CountProgress(self.texts, self.chars, len(self.chunk_counts))

    # Stages 2 and 3: pair counts, then merges.

    def merges(self) -> Iterator[Merge]:
        """Learn merges until the vocabulary is full or no pair occurs twice... or at all.

        The chunk counts are let go once laid out as bytes (their strings and dict were a twentieth
        of the peak memory of training 10 MB of code, held to the end for nothing): a trainer learns
        its merges once."""
        if self.learned:
            raise TrainingError("this trainer has learned its merges already and let its chunk counts go: "
                                "make a new BpeTrainer and count the texts again")
        if not self.chunk_counts:
            raise TrainingError("the corpus is empty: add some text before training")
        chunks = [chunk.encode("utf-8") for chunk in self.chunk_counts]
        counts = list(self.chunk_counts.values())
        self.chunk_counts = Counter()
        self.learned = True
        vocab = [bytes([b]) for b in range(BYTE_VOCAB)]
        # The pair index goes straight in, unnamed here: `_learn_merges` lets its lists of chunks go.
        yield from _learn_merges(chunks, counts, vocab, self.vocab_size, self.special_tokens, self.rules,
                                 self.explain_ties, _byte_pairs(chunks, counts))


def spelt_specials(special_tokens: Iterable[str]) -> dict[bytes, str]:
    """The bytes each special token stands for in a byte-level vocabulary (where `Ġ` is a space),
    for the special tokens made only of byte characters: merges that make these bytes rebuild it."""
    spelt: dict[bytes, str] = {}
    for token in special_tokens:
        try:
            spelt[from_chars(token)] = token
        except KeyError:  # a character outside the byte alphabet: no merge can make it
            pass
    return spelt


def special_token_ids(merges: Iterable[Merge], special_tokens: Iterable[str]) -> dict[str, int]:
    """Each special token's id: the id of the byte or merged token spelt the same, if there is
    one (as Hugging Face's trainer gives them one id), else the next id after the last merge."""
    specials = list(dict.fromkeys(special_tokens))
    spelt = spelt_specials(specials)
    ids = {spelt[bytes([b])]: b for b in range(BYTE_VOCAB) if bytes([b]) in spelt}
    last = BYTE_VOCAB - 1
    for merge in merges:
        last = max(last, merge.new_id)
        if merge.token in spelt:
            ids.setdefault(spelt[merge.token], merge.new_id)
    for token in specials:
        if token not in ids:
            last += 1
            ids[token] = last
    return {token: ids[token] for token in specials}


def vocabulary_size(merges: Sequence[Merge], special_tokens: Iterable[str]) -> int:
    """How many ids these merges and special tokens make (what training fills up to `vocab_size`)."""
    return max([BYTE_VOCAB - 1, *(m.new_id for m in merges), *special_token_ids(merges, special_tokens).values()]) + 1


PairIndex = tuple[defaultdict[int, int], dict[int, "array[int]"], int]  # pair counts, where, total tokens


def _byte_pairs(chunks: list[bytes], counts: list[int]) -> PairIndex:
    """The pairs of bytes in `chunks` occurring `counts` times: each pair's count, the chunks that hold
    it, and the number of bytes in all. Vectorised: this pass reads every byte of every distinct chunk,
    which a Python loop does at a fifth of the speed. In batches of about PAIR_BATCH_BYTES, so that
    numpy's scratch (some 50 bytes a byte) stays small beside the words whatever the corpus."""
    lengths = np.fromiter(map(len, chunks), dtype=np.int64, count=len(chunks))
    total_tokens = int(lengths @ np.array(counts, dtype=np.int64))
    weights = np.array(counts, dtype=np.float64)  # exact: counts sum to under 2 ** 53
    ends = np.cumsum(lengths)
    cuts = np.searchsorted(ends, np.arange(PAIR_BATCH_BYTES, int(ends[-1]), PAIR_BATCH_BYTES)).tolist()
    bounds = list(dict.fromkeys([0, *cuts, len(chunks)]))
    pair_counts: defaultdict[int, int] = defaultdict(int)
    where: dict[int, array[int]] = {}
    for first, last in zip(bounds, bounds[1:]):
        _index_pairs(chunks, first, last, lengths, weights, pair_counts, where)
    return pair_counts, where, total_tokens


def _index_pairs(chunks: list[bytes], first: int, last: int, lengths: np.ndarray, weights: np.ndarray,
                 pair_counts: defaultdict[int, int], where: dict[int, array[int]]) -> None:
    """Add the pairs of `chunks[first:last]` to the index (batches come in order: holders stay sorted)."""
    flat = np.frombuffer(b"".join(chunks[first:last]), dtype=np.uint8)
    owner = np.repeat(np.arange(first, last, dtype=np.int32), lengths[first:last])
    inside = owner[1:] == owner[:-1]  # byte i and i + 1 are in one chunk
    codes = (flat[:-1].astype(np.int32) << 8 | flat[1:])[inside]
    owner = owner[1:][inside]
    del flat, inside
    totals = np.bincount(codes, weights=weights[owner], minlength=1 << 16).astype(np.int64)
    for code in np.flatnonzero(totals).tolist():
        pair_counts[(code >> 8) << _SHIFT | code & 0xFF] += int(totals[code])
    # Which chunks hold each pair: (pair, chunk) sorted and made unique, then cut at each new pair.
    keys = np.sort(codes.astype(np.int64) * len(chunks) + owner)  # np.unique is ten times slower (numpy 2.3)
    del codes, owner
    keys = keys[np.diff(keys, prepend=-1) != 0]
    code_of = (keys // len(chunks)).astype(np.int32)
    holders = (keys - code_of.astype(np.int64) * len(chunks)).astype(np.int32).tobytes()
    del keys
    starts = np.flatnonzero(np.diff(code_of, prepend=-1)).tolist()
    for start, end, code in zip(starts, starts[1:] + [len(code_of)], code_of[starts].tolist()):
        pair = (code >> 8) << _SHIFT | code & 0xFF
        held = where.get(pair)
        if held is None:
            held = where[pair] = array("i")
        held.frombytes(holders[start * 4 : end * 4])


def release_freed_memory() -> None:
    """Give the memory freed by training back to the system (glibc keeps it otherwise, as the
    numpy scratch pushed its threshold for doing so up): a run that then saves its tokenizer would
    reach a higher peak in saving than in training. Elsewhere than glibc, nothing to do."""
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):  # no C library to load, or not glibc
        pass


def _learn_merges(chunks: list[bytes], counts: list[int], vocab: list[bytes], vocab_size: int,
                  special_tokens: Sequence[str], rules: Rules, explain_ties: bool, pairs: PairIndex
                  ) -> Iterator[Merge]:
    """The merge loop over distinct `chunks` occurring `counts` times, until `vocab` and the
    special tokens not in it yet make `vocab_size` tokens; `pairs` is their pair index (`_byte_pairs`).

    `chunks` must be in the order first seen: the "minbpe" rules break ties by it. They are emptied:
    from here on they are ids (`FlatWords`).
    """
    words = FlatWords(chunks, counts)
    chunks.clear()
    # Tie-break keys ("hf" rules): special tokens first (negative), then bytes in Hugging Face's
    # code-point order, then new tokens by id (always larger).
    key = list(hf_byte_order())
    id_of = {token: token_id for token_id, token in enumerate(vocab)}
    place = {token: index - len(special_tokens) for index, token in enumerate(special_tokens)}
    special_key = {data: place[token] for data, token in spelt_specials(special_tokens).items()}
    for data, special in special_key.items():
        if data in id_of:  # a one-byte special token is that byte
            key[id_of[data]] = special
    pending = len(special_tokens) - sum(data in id_of for data in special_key)  # specials not in `vocab` yet

    pair_counts, where, total_tokens = pairs
    del pairs  # else it holds `where` to the end (2 MB on 10 MB of code)

    # Each queue entry carries the chunks it will merge in, as in trainer.rs (a copy: `where` goes now).
    queue = (FirstSeenQueue if rules == "minbpe" else HfQueue)(pair_counts, where, key, words, vocab, explain_ties)
    del where
    fresh_ids = rules == "minbpe"  # the tutorials give every merge its own id, even for bytes seen before

    rank = 0
    while len(vocab) + pending < vocab_size:
        best = queue.pop()
        if best is None:
            break
        pair, count, held = best
        tie = queue.tie(pair, count, held)
        left, right = pair >> _SHIFT, pair & _MASK
        token = vocab[left] + vocab[right]
        new_id = None if fresh_ids else id_of.get(token)
        if new_id is None:  # the same bytes can be reached by two different pairs
            new_id = len(vocab)
            vocab.append(token)
            id_of[token] = new_id
            if token in special_key:  # rebuilds a special token: its slot and its place in the order
                key.append(special_key[token])
                pending -= 1
            else:
                key.append(new_id)
        new_pairs, removed = words.merge(held, counts, left, right, new_id, pair_counts)
        total_tokens -= removed
        queue.push(new_pairs)

        yield Merge(rank, left, right, new_id, token, count, total_tokens, tie)
        rank += 1
    del queue, words, pair_counts, id_of, key
    release_freed_memory()  # before whatever comes next, say saving the tokenizer, asks for more


def train(
    texts: Iterable[str], vocab_size: int, pattern: str = "cl100k", special_tokens: Iterable[str] = (),
    rules: Rules = "hf", explain_ties: bool = False,
) -> Iterator[Merge]:
    """Count `texts`, then yield merges: the short way when no counting progress is needed.

    >>> [m.token for m in train(["the cat sat on the mat"], 257, pattern="gpt2")]
    [b'at']
    """
    trainer = BpeTrainer(vocab_size, pattern, special_tokens, rules, explain_ties)
    run_to_end(trainer.add_texts(texts))
    return trainer.merges()
