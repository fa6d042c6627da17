"""A training run as records: counting, merge stage, merges with held-out token counts."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from explorer.core.algorithms.train import Merge, train
from explorer.core.algorithms.training_run import (
    Counting, HeldOutTracker, Learned, MergeStage, RunSummary, TrainingSettings, run_training)
from explorer.core.corpora.corpus_sources import Corpus, Source, sample_sources
from explorer.core.errors import TrainingError
from explorer.core.formats.own import from_merges

SPECIALS = ("<|endoftext|>",)


def run(corpus: Corpus, settings: TrainingSettings) -> tuple[list[object], RunSummary]:
    records, generator = [], run_training(corpus, settings)
    while True:
        try:
            records.append(next(generator))
        except StopIteration as stop:
            return records, stop.value


def test_records_in_order_and_merges_equal_the_core() -> None:
    english, hindi = sample_sources()[:2]
    corpus = Corpus((english,), held_out=hindi)
    records, summary = run(corpus, TrainingSettings(600, "cl100k", SPECIALS))
    kinds = [type(r).__name__ for r in records]
    first_learned = kinds.index("Learned")
    assert set(kinds[: first_learned - 1]) == {"Counting"} and kinds[first_learned - 1] == "MergeStage"
    learned = [r for r in records if isinstance(r, Learned)]
    texts = list(corpus.reader())
    assert [r.merge for r in learned] == list(train(texts, 600, "cl100k", SPECIALS))
    stage = records[first_learned - 1]
    assert isinstance(stage, MergeStage) and stage.target_merges == 600 - 256 - 1
    assert stage.corpus_tokens == sum(len(t.encode()) for t in texts)
    assert summary == RunSummary(len(learned), len(learned) < stage.target_merges)


def test_held_out_tokens_equal_encoding_with_the_merges_so_far() -> None:
    english, hindi, korean = sample_sources()[:3]
    held_out_text = "".join(Corpus((hindi,)).reader())
    records, _ = run(Corpus((english, hindi), held_out=korean), TrainingSettings(900, "o200k"))
    learned = [r for r in records if isinstance(r, Learned)]
    korean_text = "".join(Corpus((korean,)).reader())
    for upto in (1, 100, len(learned)):
        tokenizer = from_merges([r.merge for r in learned[:upto]], "o200k")
        assert learned[upto - 1].held_out_tokens == len(tokenizer.encode(korean_text))
    assert held_out_text  # Hindi is trained on: its merges help little on Korean, but the count still drops
    assert learned[-1].held_out_tokens < len(korean_text.encode())


def test_tracker_on_overlapping_pairs() -> None:
    tracker = HeldOutTracker(["aaaa", "aaa"], "none")
    assert tracker.tokens == 7
    assert tracker.apply(97, 97, 256) == 4  # aaaa -> [aa, aa]; aaa -> [aa, a]
    assert tracker.apply(256, 256, 257) == 3


def test_hf_engine_gives_the_same_merges_and_counts() -> None:
    """Its merges, and the counts measured afterwards, equal the built-in trainer's, specials in the text included."""
    text = Source.pasted("Hello<|endoftext|>hello\r\nhello again <|endoftext|> aaaaaa\n" * 3)
    corpus = Corpus((*sample_sources()[:2], text), held_out=sample_sources()[2])
    settings = TrainingSettings(700, "cl100k", SPECIALS)
    built_in_records, _ = run(corpus, settings)
    built_in = [r for r in built_in_records if isinstance(r, Learned)]
    records, summary = run(corpus, TrainingSettings(700, "cl100k", SPECIALS, engine="hf"))
    hf = [r for r in records if isinstance(r, Learned)]
    # Tokens, ids and corpus totals equal. Counts equal too, except for a pair of the same token
    # in a run ("aaaaaa"): the built-in trainer counts the pair's 5 places, the measured count the 3 merges made.
    assert [r.merge.total_tokens for r in hf] == [r.merge.total_tokens for r in built_in]
    def comparable(merge: Merge) -> Merge:
        return replace(merge, count=0) if merge.left == merge.right else merge

    assert [comparable(r.merge) for r in hf] == [comparable(r.merge) for r in built_in]
    assert any(a.merge.count < b.merge.count for a, b in zip(hf, built_in))  # "aaaaaa" is in the text
    assert [r.held_out_tokens for r in hf] == [r.held_out_tokens for r in built_in]
    stage = next(r for r in records if isinstance(r, MergeStage))
    built_in_stage = next(r for r in built_in_records if isinstance(r, MergeStage))
    assert stage.corpus_tokens == built_in_stage.corpus_tokens
    phases = [r.phase for r in records if isinstance(r, Counting)]
    assert phases == sorted(phases, key=["reading", "learning", "measuring"].index)
    assert summary.merges == len(hf)


def test_merge_counts_walk_back_from_the_final_tokens() -> None:
    """aaabdaaabac: aa, ab and aaab twice each (ZabdZabac, ZYdZYac, XdXac); 11 bytes."""
    from explorer.core.algorithms.training_run import _hf_fit, _hf_merges, merge_counts

    settings = TrainingSettings(259, "none")
    tokenizer = _hf_fit(["aaabdaaabac"], settings)
    merges = _hf_merges(tokenizer)
    assert [m.token for m in merges] == [b"aa", b"ab", b"aaab"]
    assert merge_counts(tokenizer.model, "none", merges, ["aaabdaaabac"]) == ([2, 2, 2], 11)


def test_refuses_bad_settings() -> None:
    with pytest.raises(TrainingError, match="at least 257"):
        run(Corpus((Source.pasted("abc"),)), TrainingSettings(256, "gpt2", SPECIALS))
    with pytest.raises(TrainingError, match="empty"):
        run(Corpus(), TrainingSettings(1000))
    with pytest.raises(TrainingError, match="no text"):
        run(Corpus((Source.pasted(""),)), TrainingSettings(1000))


def test_counting_reports_bytes() -> None:
    corpus = Corpus(tuple(sample_sources()[:4]))
    records, _ = run(corpus, TrainingSettings(300))
    counting = [r for r in records if isinstance(r, Counting)]
    assert counting[-1].bytes_read == counting[-1].total_bytes == corpus.reader().total_bytes


def test_named_run_returns_the_tokenizer_and_build_tokenizer_matches() -> None:
    from explorer.core.algorithms.training_run import build_tokenizer

    corpus = Corpus((sample_sources()[0],))
    settings = TrainingSettings(400, "gpt2", SPECIALS)
    generator = run_training(corpus, settings, "garden", {"note": "test"})
    learned = []
    while True:
        try:
            item = next(generator)
        except StopIteration as stop:
            summary = stop.value
            break
        if isinstance(item, Learned):
            learned.append(item.merge)
    tokenizer = summary.tokenizer
    assert tokenizer is not None and tokenizer.name == "garden" and tokenizer.metadata == {"note": "test", "rules": "hf"}
    assert tokenizer.special_tokens == {"<|endoftext|>": 399}
    assert build_tokenizer(learned, settings, "garden").merges == tokenizer.merges


def test_minbpe_rules_read_each_file_whole_and_are_recorded(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from tests.core.test_train import BAKERY
    from tests.core.test_train_rules import seed_004_train

    corpus_file = tmp_path / "bakery.txt"
    corpus_file.write_bytes(BAKERY.encode("utf-8"))
    corpus = Corpus((Source.for_path(corpus_file),))  # a plain file: one text per line for "hf" rules
    settings = TrainingSettings(256 + 30, "none", rules="minbpe")
    records, _ = run(corpus, settings)
    merges = [r.merge for r in records if isinstance(r, Learned)]
    expected, _ = seed_004_train(BAKERY, 256 + 30)
    assert {(m.left, m.right): m.new_id for m in merges} == expected
    assert next(r for r in records if isinstance(r, Counting)).texts == 1
    hf_records, _ = run(corpus, replace(settings, rules="hf"))
    assert next(r for r in hf_records if isinstance(r, Counting)).texts == 5
    generator = run_training(corpus, settings, name="bakery")
    while True:
        try:
            next(generator)
        except StopIteration as stop:
            assert stop.value.tokenizer.metadata["rules"] == "minbpe"
            break
    with pytest.raises(TrainingError, match="built-in engine"):
        run(corpus, replace(settings, engine="hf"))


def counts_by_encoding_the_corpus(corpus: Corpus, settings: TrainingSettings) -> list[int]:
    """The merge counts the Hugging Face engine had from its start: train, encode every text of the
    corpus again with the trained model (HF's own pipeline), and walk the merges back from the final tokens."""
    import numpy as np

    from explorer.core.algorithms.bytelevel import from_chars
    from explorer.core.algorithms.training_run import _hf_fit, _hf_merges
    from explorer.core.formats.hf import training_pipeline

    texts = list(corpus.reader())
    tokenizer = _hf_fit(texts, settings)
    merges = _hf_merges(tokenizer)
    encoder = training_pipeline(settings.pattern)
    encoder.model = tokenizer.model
    ours = {merge.token: merge.new_id for merge in merges} | {bytes([b]): b for b in range(256)}
    to_ours = {hf_id: ours[from_chars(chars)] for chars, hf_id in encoder.get_vocab().items()
               if chars not in settings.special_tokens or from_chars(chars) in ours}
    final = np.zeros(max(ours.values()) + 1, dtype=np.int64)
    for encoding in encoder.encode_batch(texts, add_special_tokens=False):
        for hf_id in encoding.ids:
            final[to_ours[hf_id]] += 1
    counts = [0] * len(merges)
    for merge in reversed(merges):
        counts[merge.rank] = int(final[merge.new_id])
        final[merge.new_id] = 0
        final[merge.left] += counts[merge.rank]
        final[merge.right] += counts[merge.rank]
    return counts


def edgy_corpus(kind: str, size: int) -> Corpus:
    """A generated corpus with CRLF endings and special tokens inside the text (HF's trainer splits neither out)."""
    from tests.corpora import corpus_lines

    lines = corpus_lines(kind, size, seed=16)
    lines[::7] = [line.rstrip("\n") + "<|endoftext|>\r\n" for line in lines[::7]]
    return Corpus((Source.pasted("".join(lines)),))


@pytest.mark.parametrize("kind", ["prose", "code", "multi"])
@pytest.mark.parametrize("pattern", ["gpt2", "cl100k", "o200k"])
def test_hf_counts_equal_encoding_the_whole_corpus_again(kind: str, pattern: str) -> None:
    corpus = edgy_corpus(kind, 40_000)
    settings = TrainingSettings(900, pattern, SPECIALS, engine="hf")
    records, _ = run(corpus, settings)
    learned = [r.merge for r in records if isinstance(r, Learned)]
    assert [m.count for m in learned] == counts_by_encoding_the_corpus(corpus, settings)
    stage = next(r for r in records if isinstance(r, MergeStage))
    assert stage.corpus_tokens == sum(len(t.encode()) for t in corpus.reader())
    assert learned[-1].total_tokens == stage.corpus_tokens - sum(m.count for m in learned)


def test_hf_counts_of_a_text_with_nul_characters() -> None:
    """Chunks are measured many to a text with NUL between them: a pasted text holding NUL itself
    is measured a chunk to a text, to the same exact counts."""
    lines = edgy_corpus("multi", 5_000).sources[0].text.splitlines(keepends=True)
    lines[::3] = [line.replace(" ", " \x00\x00", 1) for line in lines[::3]]
    corpus = Corpus((Source.pasted("".join(lines)),))
    settings = TrainingSettings(600, "cl100k", SPECIALS, engine="hf")
    records, _ = run(corpus, settings)
    learned = [r.merge for r in records if isinstance(r, Learned)]
    assert any(m.token == b"\x00\x00" for m in learned)
    assert [m.count for m in learned] == counts_by_encoding_the_corpus(corpus, settings)
    stage = next(r for r in records if isinstance(r, MergeStage))
    assert learned[-1].total_tokens == stage.corpus_tokens - sum(m.count for m in learned)


def test_hf_counts_do_not_encode_the_corpus_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the distinct chunks are encoded after training: far fewer characters than the corpus has."""
    import explorer.core.algorithms.training_run as training_run

    encoded: list[int] = []

    class Watched:
        """A `tokenizers.Tokenizer` that adds up the characters it is asked to encode."""

        def __init__(self, inner: object) -> None:
            object.__setattr__(self, "inner", inner)

        def __getattr__(self, name: str) -> object:
            return getattr(self.inner, name)

        def __setattr__(self, name: str, value: object) -> None:
            setattr(self.inner, name, value)

        def encode_batch_fast(self, texts: list[str], **options: object) -> object:
            encoded.append(sum(map(len, texts)))
            return self.inner.encode_batch_fast(texts, **options)  # type: ignore[attr-defined]

        encode_batch = encode_batch_fast

    real = training_run.training_pipeline
    monkeypatch.setattr(training_run, "training_pipeline", lambda pattern: Watched(real(pattern)))
    text = "".join(edgy_corpus("prose", 100_000).reader())
    corpus = Corpus((Source.pasted(text * 4),))  # real text repeats its words: 4 times here
    settings = TrainingSettings(600, "cl100k", SPECIALS, engine="hf")
    records, _ = run(corpus, settings)
    assert sum(r.merge.count for r in records if isinstance(r, Learned)) > 0
    corpus_chars = sum(map(len, corpus.reader()))
    assert 0 < sum(encoded) < corpus_chars / 5


def test_records_pickle_as_one_call_each() -> None:
    """A training child sends tens of thousands of merges: each is rebuilt by one call to its class,
    not field by field through dataclasses' __setstate__ (a BUILD per object), and equal to what was sent."""
    import pickle
    import pickletools

    from explorer.core.algorithms.pair_queue import Tie
    from explorer.core.algorithms.training_run import Learned

    records = [Learned(Merge(rank, 97, 98, 256 + rank, b"ab", 10 - rank, 100 - rank), 50 - rank) for rank in range(3)]
    records.append(Learned(Merge(3, 1, 2, 259, b"\x01\x02", 5, 90, Tie((1 << 20 | 2, 3 << 20 | 4), 0, 1)), -1))
    data = pickle.dumps(records, protocol=pickle.HIGHEST_PROTOCOL)
    assert pickle.loads(data) == records and pickle.loads(data)[-1].merge.tie == records[-1].merge.tie
    assert "BUILD" not in {op.name for op, _, _ in pickletools.genops(data)}


def test_measuring_reports_the_chunks_encoded() -> None:
    """The Hugging Face engine's measuring phase reports its own progress (for the time left)."""
    from explorer.core.algorithms.training_run import _hf_fit, _hf_merges, chunk_merge_counts

    settings = TrainingSettings(300, "none", engine="hf")
    tokenizer = _hf_fit(["aaabdaaabac"] * 3, settings)
    merges = _hf_merges(tokenizer)
    encoded: list[int] = []
    chunk_merge_counts(tokenizer.model, merges, Counter({"aaabdaaabac": 3, "abab": 2}), encoded)
    assert encoded == [2, 2]
