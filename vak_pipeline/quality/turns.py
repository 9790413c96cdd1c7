"""Great Expectations suite over an upload's spoken turns (tagged_turns): a steward's warning layer.

One row per spoken turn, no text copied (only its length): duration, words per second, whether its
language is one the record's locale pack declares, overlap. Bounds are configurable; each rule is one
WARN asset check listing the turns that broke it. Uses the generic `quality.gx.run_suite`.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, ValidationError

from ..locales.registry import UnknownLocale, declared_languages
from ..schema.record import VakRecord
from ..storage import iter_jsonl
from .gx import ExpectationSpec, failing_rows, run_suite

if TYPE_CHECKING:
    import pandas as pd

TURN_CHECKS = ("turn_duration", "turn_text_nonempty", "turn_lang_declared", "turn_overlap_rate",
               "turn_words_per_second")
COLUMNS = ["conv_id", "turn", "speaker", "duration_s", "n_chars", "n_words", "words_per_s", "lang_declared",
           "overlap"]


class TurnBounds(BaseModel):
    min_turn_s: float = Field(default=0.1, ge=0)
    max_turn_s: float = Field(default=120.0, gt=0)
    max_overlap_rate: float = Field(default=0.3, ge=0, le=1)
    min_words_per_s: float = Field(default=0.3, ge=0)
    max_words_per_s: float = Field(default=6.0, gt=0)


def turns_frame(records: Iterable[VakRecord]) -> pd.DataFrame:
    """One row per spoken turn of records that have timing (audio); text turns from chats have none."""
    import pandas as pd

    rows: list[dict[str, Any]] = []
    for rec in records:
        if rec.audio is None:
            continue
        try:
            allowed = declared_languages(rec.locale)
        except UnknownLocale:
            allowed = set()
        for i, t in enumerate(rec.turns):
            if not t.is_spoken:
                continue
            text = (t.text or "").strip()
            dur = max(t.end - t.start, 0.0)
            n_words = len(text.split())
            rows.append({"conv_id": rec.id, "turn": i, "speaker": t.speaker, "duration_s": round(dur, 3),
                         "n_chars": len(text), "n_words": n_words,
                         "words_per_s": round(n_words / dur, 3) if dur > 0 else 0.0,
                         "lang_declared": int(bool(t.lang) and t.lang in allowed), "overlap": int(bool(t.overlap))})
    return pd.DataFrame(rows, columns=COLUMNS)


def turn_expectations(b: TurnBounds) -> list[ExpectationSpec]:
    return [
        ExpectationSpec("ExpectColumnValuesToBeBetween", {"column": "duration_s", "min_value": b.min_turn_s,
                                                          "max_value": b.max_turn_s}, "turn_duration"),
        ExpectationSpec("ExpectColumnValuesToBeBetween", {"column": "n_chars", "min_value": 1},
                        "turn_text_nonempty"),
        ExpectationSpec("ExpectColumnValuesToBeInSet", {"column": "lang_declared", "value_set": [1]},
                        "turn_lang_declared"),
        ExpectationSpec("ExpectColumnMeanToBeBetween", {"column": "overlap", "min_value": 0.0,
                                                        "max_value": b.max_overlap_rate}, "turn_overlap_rate"),
        ExpectationSpec("ExpectColumnValuesToBeBetween", {"column": "words_per_s", "min_value": b.min_words_per_s,
                                                          "max_value": b.max_words_per_s}, "turn_words_per_second"),
    ]


class TurnCheck(BaseModel):
    name: str
    passed: bool
    checked: int
    observed: Any = None
    failing: list[dict[str, Any]] = Field(default_factory=list)  # conv_id, turn, failed


def read_records(path: Path) -> Iterable[VakRecord]:
    if not Path(path).is_file():
        return
    for jl in iter_jsonl(path):
        if jl.value is None:
            continue
        try:
            yield VakRecord.model_validate(jl.value)
        except ValidationError:
            continue


def check_turns(records: Iterable[VakRecord], bounds: TurnBounds | None = None) -> list[TurnCheck]:
    """Run the turns suite; one TurnCheck per rule (TURN_CHECKS order)."""
    df = turns_frame(records)
    if len(df) == 0:
        return [TurnCheck(name=n, passed=True, checked=0) for n in TURN_CHECKS]
    outcomes = run_suite(df, turn_expectations(bounds or TurnBounds()), "turns_suite")
    out = []
    for o in outcomes:
        rows = failing_rows(df, [o], ["conv_id", "turn"])
        out.append(TurnCheck(name=o.name, passed=o.success, checked=len(df), observed=o.observed_value,
                             failing=[{k: (v.item() if hasattr(v, "item") else v) for k, v in r.items()}
                                      for r in rows]))
    return out
