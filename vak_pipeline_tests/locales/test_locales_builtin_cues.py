"""The original packs' cue words and number words are data in their pack files, read by the recognizers."""

from __future__ import annotations

from pathlib import Path

import pytest

from vak_pipeline.locales.packfile import BUILTIN_DIR, PackFileError, load_pack_file
from vak_pipeline.locales.registry import PACKS
from vak_pipeline.redaction.recognizers import spoken_digits


def test_the_builtin_spoken_digit_table_is_read_from_the_original_packs_files():
    assert spoken_digits._WORDS["nine"] == "9"  # en-US.yaml
    assert spoken_digits._WORDS["paanch"] == "5"  # hi-Latn-IN.yaml
    assert spoken_digits._WORDS["सात"] == "7"  # hi-IN.yaml
    assert spoken_digits._REPEAT == {"double": 2, "triple": 3, "डबल": 2, "ट्रिपल": 3}
    assert spoken_digits._ZH["幺"] == "1"  # zh-CN.yaml
    # the shared table is every pack's, so the original packs carry no per-pack extra words
    assert all(PACKS[p].number_words == () for p in ("en-US", "en-GB", "en-IN", "hi-Latn-IN", "hi-IN", "zh-CN"))


def test_spoken_digits_from_the_pack_files_become_a_digit_view():
    view = spoken_digits.digit_view("call me on nine eight double seven six five four")
    assert view is not None and "9877654" in view.text
    view = spoken_digits.digit_view("号码是幺三八零零一三八零零零")
    assert view is not None and "13800138000" in view.text


def test_a_repeat_word_that_repeats_four_times_is_refused_with_its_line(tmp_path: Path):
    text = (BUILTIN_DIR / "en-US.yaml").read_text(encoding="utf-8").replace("triple: 3", "triple: 4")
    (tmp_path / "en-US.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(PackFileError, match=r"en-US\.yaml:\d+: repeat_words\.en\.triple"):
        load_pack_file(tmp_path / "en-US.yaml", "test")
