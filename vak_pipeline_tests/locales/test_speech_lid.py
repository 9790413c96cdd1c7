"""Language ID per turn: script first, Romanized Hindi vs English by lexicon, short turns fall back."""

import json
from collections import Counter
from pathlib import Path

from vak_pipeline.locales import get_pack
from vak_pipeline.locales.lid import detect_lang, language_summary, tag_languages
from vak_pipeline.schema import Language, Meta, ToolCall, Turn, VakRecord

LABELLED = Path(__file__).parents[1] / "fixtures" / "speech" / "lid_labelled.jsonl"


def _rows():
    return [json.loads(line) for line in LABELLED.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_labelled_set_is_large_and_varied():
    rows = _rows()
    assert len(rows) >= 200
    assert {r["kind"] for r in rows} >= {"en", "hi-Latn", "hi", "zh", "mixed", "short"}


def test_turn_level_accuracy_on_the_labelled_set_is_at_least_0_9():
    rows = _rows()
    hits = Counter()
    for r in rows:
        hits[r["lang"] == detect_lang(get_pack(r["locale"]), r["text"], r["fallback"])] += 1
    assert hits[True] / len(rows) >= 0.9


def test_script_decides_devanagari_and_han_even_with_borrowed_english_words():
    en_in = get_pack("en-IN")
    assert detect_lang(en_in, "मेरा refund अभी तक नहीं आया।", "en") == "hi"
    assert detect_lang(get_pack("zh-CN"), "我的 order 还没到，能帮我查一下吗？", "zh") == "zh"
    assert detect_lang(en_in, "हाँ", "en") == "hi"  # script wins even for a one-word turn


def test_romanized_hindi_vs_english_with_homographs_down_weighted():
    pack = get_pack("en-IN")
    assert detect_lang(pack, "Mera inverter do din se band pada hai.", "en") == "hi-Latn"
    # "to", "the", "main", "do" are Romanized-Hindi words too; this is still English
    assert detect_lang(pack, "I want to check the status of the main order, do it today.", "en") == "en"


def test_short_turns_fall_back_to_the_conversation_language():
    pack = get_pack("hi-Latn-IN")
    assert detect_lang(pack, "Okay.", "hi-Latn") == "hi-Latn"
    assert detect_lang(pack, "Okay.", "en") == "en"


def test_packs_without_romanized_hindi_never_return_hi_latn():
    assert detect_lang(get_pack("en-US"), "Mera refund abhi tak nahi aaya hai.", "en") == "en"


def test_language_summary_primary_is_bcp47_and_mix_sorted_bases():
    pack = get_pack("en-IN")
    assert language_summary(["en", "hi-Latn", "en"], pack) == Language(primary="en-IN", mix=["en", "hi"])
    assert language_summary(["hi-Latn", "hi-Latn", "en"], get_pack("hi-Latn-IN")).primary == "hi-Latn"
    assert language_summary(["zh"], get_pack("zh-CN")).primary == "zh-CN"


def test_tag_languages_sets_every_spoken_turn_and_the_record_language():
    rec = VakRecord(
        id="c1", schema_version="0.1", locale="en-IN", language=Language(primary="en-IN"),
        turns=[Turn(speaker="agent", start=0, end=2, text="Namaste, aapki kya madad kar sakti hoon?"),
               Turn(speaker="user", start=2, end=3, text="Haan."),
               Turn(speaker="agent", start=3, end=3, tool_call=ToolCall(id="c", name="check_status")),
               Turn(speaker="user", start=3, end=6, text="Mera order abhi tak nahi aaya, please check karo.")],
        meta=Meta(source="synthetic", consent="synthetic"))
    out = tag_languages(rec)
    assert [t.lang for t in out.turns] == ["hi-Latn", "hi-Latn", None, "hi-Latn"]  # short turn: conversation lang
    assert out.language == Language(primary="hi-Latn", mix=["hi"])
