"""The redaction stage's settings: one model, used by the library call and (derived) by Dagster's config."""

from __future__ import annotations

import hashlib
import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .audio import AudioSettings

# bump when the redacted record for the same input and settings would change; 4: synthetic records cleaned too
STAGE_VERSION = "4"
# bump when a recognizer (pii/, locales/ code) would find other spans in the same text: an explicit constant, so a
# comment edit never re-redacts a year of data (the locale pack files are fingerprinted: they are data)
# 2: personal references, identifier digits, accents, rare names; 3: blind-set name shapes; 4: form labels,
# relations, brands, initials (issue 27); 5: sign-offs, names said then spelled apart, a line break ends a name,
# Devanagari form labels and "के नाम", three-word hand-off cues, names joined by and/和, places and months
# before a weak cue (issue 27); 6: the European packs' name lists, cues (colleagues, relatives, account
# holders, titles, lower-case ASR), closings, a name beside a street word is the street (issue 27)
# 7: days are no names, a word before a colon is a label, street word + particles, honorifics and relations
# are never the name, list labels, "called", zh role nouns and 联系/机主, Devanagari lists and family words,
# "sie sprechen mit", en/au before a lone first name is a place or shop (issue 27)
RECOGNIZERS_VERSION = "7"


class RedactionSettings(BaseModel):
    """What shapes a redacted record and its masked audio; every field is part of each record's key."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    skip_redaction: bool = Field(
        default=False,
        description="Loud warning; rows are marked and rejected by validation, and their audio is never published.",
    )
    audio_method: Literal["tone", "silence"] = Field(default="tone", description="How PII audio is masked.")
    padding_s: float = Field(default=0.15, ge=0, description="Seconds masked either side of a PII word.")
    ner: bool = Field(default=False, description="Optional NER for names (only if a spaCy NER model is installed).")
    tone_hz: float = Field(default=1000.0, gt=0, description="Frequency of the masking tone.")
    tone_dbfs: float = Field(default=-20.0, le=0, description="Level of the masking tone.")

    @property
    def audio(self) -> AudioSettings:
        return AudioSettings(self.audio_method, self.padding_s, self.tone_hz, self.tone_dbfs)

    def fingerprint(self) -> str:
        """Settings plus the recognizers' code, name lists and pack files: a better recognizer (or an edited pack)
        re-redacts every record once."""
        from ..locales.registry import packs_fingerprint
        from ..pii.name_table import fingerprint as names_fingerprint

        settings = RedactionSettings.model_dump(self)
        shaping = [STAGE_VERSION, settings, RECOGNIZERS_VERSION, names_fingerprint(), packs_fingerprint()]
        return hashlib.sha256(json.dumps(shaping, sort_keys=True).encode()).hexdigest()[:16]


def stage_version() -> str:
    """The redacted_manifest asset's code_version: STAGE_VERSION, RECOGNIZERS_VERSION and the pack files."""
    from ..locales.registry import packs_fingerprint

    return f"{STAGE_VERSION}-{RECOGNIZERS_VERSION}-{packs_fingerprint()}"
