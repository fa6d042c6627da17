"""A small notebook for a shared garden: beds, sowings and a watering rota.

Written as a code sample for Tokenizer Explorer: ordinary, readable Python with
classes, dates, f-strings and comments, so a tokenizer trained on it learns what
code looks like (indentation, `self.`, `def `, `return `).
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass, field

DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


@dataclass
class Sowing:
    """One crop sown in one bed on one day."""

    crop: str
    sown_on: dt.date
    days_to_harvest: int

    @property
    def harvest_on(self) -> dt.date:
        return self.sown_on + dt.timedelta(days=self.days_to_harvest)

    def is_ready(self, today: dt.date) -> bool:
        return today >= self.harvest_on


@dataclass
class Bed:
    """A raised bed looked after by one gardener for a year."""

    number: int
    gardener: str
    shady: bool = False
    sowings: list[Sowing] = field(default_factory=list)

    def sow(self, crop: str, on: dt.date, days_to_harvest: int) -> Sowing:
        if self.shady and crop in {"beans", "peas", "tomatoes"}:
            # Not forbidden, only unwise: these crops like the sun.
            print(f"Bed {self.number} is shady; {crop} may grow slowly.")
        sowing = Sowing(crop, on, days_to_harvest)
        self.sowings.append(sowing)
        return sowing

    def ready(self, today: dt.date) -> list[str]:
        return [s.crop for s in self.sowings if s.is_ready(today)]


class Notebook:
    """Every bed in the garden, plus the mistakes page at the back."""

    def __init__(self) -> None:
        self.beds: dict[int, Bed] = {}
        self.mistakes: list[str] = []

    def add_bed(self, number: int, gardener: str, shady: bool = False) -> Bed:
        if number in self.beds:
            raise ValueError(f"bed {number} already belongs to {self.beds[number].gardener}")
        bed = self.beds[number] = Bed(number, gardener, shady)
        return bed

    def note_mistake(self, text: str) -> None:
        self.mistakes.append(text.strip())

    def watering_rota(self, volunteers: list[str]) -> dict[str, list[str]]:
        """Share the seven days between volunteers, in turn, starting on Monday."""
        if not volunteers:
            return {}
        rota: dict[str, list[str]] = defaultdict(list)
        for index, day in enumerate(DAYS):
            rota[volunteers[index % len(volunteers)]].append(day)
        return dict(rota)

    def harvest_report(self, today: dt.date) -> str:
        lines = [f"Harvest report for {today:%d %B %Y}"]
        for number in sorted(self.beds):
            crops = self.beds[number].ready(today)
            if crops:
                lines.append(f"  bed {number:>2}: {', '.join(crops)}")
        if len(lines) == 1:
            lines.append("  nothing is ready yet; be patient")
        return "\n".join(lines)


def main() -> None:
    notebook = Notebook()
    spring = dt.date(2024, 4, 1)
    notebook.add_bed(1, "Rosa").sow("tomatoes", spring, 80)
    notebook.add_bed(2, "Sam", shady=True).sow("lettuce", spring, 45)
    notebook.add_bed(3, "Amira").sow("beans", spring + dt.timedelta(days=14), 60)
    notebook.note_mistake("Planted mint in the shared bed. It is now the mint bed.")

    for person, days in notebook.watering_rota(["Rosa", "Sam", "Amira"]).items():
        print(f"{person:<6} waters on {', '.join(days)}")
    print(notebook.harvest_report(dt.date(2024, 6, 20)))


if __name__ == "__main__":
    main()
