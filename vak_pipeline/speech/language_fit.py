"""Does the ASR model that made a transcript cover the language spoken? (exports exclude the ones that don't)

An English-only Whisper model (tiny.en, base.en, small.en, medium.en, distil-*) run on a Hindi or
Hinglish call writes fluent-looking English nonsense, and the locale pack's detect_lang then tags that
text `en`: the turn's own `lang` cannot reveal the mistake. So the language a turn is expected to be in is
taken from two places: the conversation's locale (set by whoever delivered the upload: `hi-Latn-IN` ->
`hi`) and the turn's detected `lang`. A transcript is unfit when the engine named in
meta.transcription.engine does not cover one of them. Human-verified transcripts are always fit.
For Hindi and Chinese calls configure a multilingual model (faster-whisper `large-v3`); see docs/exports.md.
"""

from __future__ import annotations

import re

from ..schema import VakRecord

# Whisper checkpoints trained on English only (faster-whisper names and hub ids end like this)
_ENGLISH_ONLY = re.compile(r"(\.en$|[-_.]en$|distil-(small|medium|large)|distil-whisper)", re.IGNORECASE)


def model_languages(engine: str) -> set[str] | None:
    """Base language codes the engine covers: {"en"} for English-only checkpoints, None for multilingual."""
    name = engine.strip().lower()
    return {"en"} if _ENGLISH_ONLY.search(name) else None


def base_language(tag: str | None) -> str | None:
    """'hi-Latn' -> 'hi', 'en-IN' -> 'en', 'zh-CN' -> 'zh'."""
    return tag.split("-")[0].lower() if tag else None


def unfit_asr_turns(record: VakRecord) -> dict[int, str]:
    """{turn index: why} for spoken turns whose transcript came from a model that does not cover their
    language; empty when the record has no ASR transcript, it was verified by a human, or the model fits."""
    tr = record.meta.transcription
    if record.audio is None or tr is None or tr.verified_by_human:
        return {}
    covered = model_languages(tr.engine)
    if covered is None:
        return {}
    expected = base_language(record.locale)
    out: dict[int, str] = {}
    for i, t in enumerate(record.turns):
        if not t.is_spoken or not t.text:
            continue
        for lang in (expected, base_language(t.lang)):
            if lang is not None and lang not in covered:
                out[i] = (
                    f"transcribed by {tr.engine}, which covers {', '.join(sorted(covered))} only, but the "
                    f"{'locale ' + record.locale if lang == expected else 'turn language ' + str(t.lang)} "
                    f"is {lang}; re-transcribe with a multilingual model (large-v3)"
                )
                break
    return out
