"""Train one corpus under both rules and say where the merge lists part ways.

Seed 000 compares its tutorial trainer with Hugging Face's: "The two trainers learned 3,827 of the
same 3,832 tokens, though their order drifts apart from merge 311 on, where ties are broken
differently." `compare_rules` gives the same two figures for any corpus: the first merge whose
token differs, and how many tokens both vocabularies hold.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass, replace

from explorer.core.algorithms.train import RULES, Merge
from explorer.core.algorithms.training_run import Learned, TrainingSettings, run_training
from explorer.core.corpora.corpus_sources import Corpus

PROGRESS_EVERY = 64  # merges between progress records


@dataclass(frozen=True, slots=True)
class Comparing:
    """Progress: which rules are training, and how far."""

    rules: str
    merges: int
    target: int


@dataclass(frozen=True)
class RulesComparison:
    """The merges of both rules on one corpus, and where they first differ.

    >>> a = [Merge(0, 97, 98, 256, b"ab", 2, 0), Merge(1, 256, 99, 257, b"abc", 2, 0)]
    >>> b = [Merge(0, 97, 98, 256, b"ab", 2, 0), Merge(1, 98, 99, 257, b"bc", 2, 0)]
    >>> c = RulesComparison(tuple(a), tuple(b))
    >>> c.first_difference, c.shared_tokens
    (1, 1)
    """

    hf: tuple[Merge, ...]
    minbpe: tuple[Merge, ...]

    @property
    def first_difference(self) -> int:
        """The rank of the first merge whose token differs; -1 when the lists are the same."""
        return first_difference(self.hf, self.minbpe)

    @property
    def shared_tokens(self) -> int:
        """Tokens (as bytes) both rules learned, whatever their order."""
        return len({m.token for m in self.hf} & {m.token for m in self.minbpe})

    def summary(self) -> str:
        """One sentence for a person, like seed 000's."""
        size = max(len(self.hf), len(self.minbpe))
        shared = f"{self.shared_tokens:,} of {size:,} learned tokens are the same"
        difference = self.first_difference
        if difference < 0:
            return f"The two rules learned the same {size:,} merges in the same order."
        ties = self.hf[difference].tie if difference < len(self.hf) else None
        why = " (a tie, broken differently)" if ties is not None else ""
        return f"{shared}; the merge lists agree up to merge {difference:,} and part at merge {difference + 1:,}{why}."


def first_difference(a: Sequence[Merge], b: Sequence[Merge]) -> int:
    for rank, (left, right) in enumerate(zip(a, b)):
        if left.token != right.token:
            return rank
    return -1 if len(a) == len(b) else min(len(a), len(b))


def compare_rules(corpus: Corpus, settings: TrainingSettings) -> Generator[Comparing, None, RulesComparison]:
    """Train `corpus` with each rules on the built-in engine (held-out text left out: not needed)."""
    corpus = replace(corpus, held_out=None)
    learned: dict[str, tuple[Merge, ...]] = {}
    for rules in RULES:
        run = run_training(corpus, replace(settings, rules=rules, engine="builtin"))  # type: ignore[arg-type]
        merges: list[Merge] = []
        yield Comparing(rules, 0, settings.target_merges)
        for record in run:
            if isinstance(record, Learned):
                merges.append(record.merge)
                if len(merges) % PROGRESS_EVERY == 0:
                    yield Comparing(rules, len(merges), settings.target_merges)
        learned[rules] = tuple(merges)
    return RulesComparison(learned["hf"], learned["minbpe"])
