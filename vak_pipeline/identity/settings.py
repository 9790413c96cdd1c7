"""The settings that decide what counts as the same content (part of the content index's key)."""

from __future__ import annotations

import hashlib
import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

# Bumped whenever a fingerprint or a match decision would change for the same input and settings.
# 2: audio bit errors weighed by frame energy; 3: exact text copies share LSH bands; 4: text signatures stored
# as uint32 (an older index is re-checked on open, its uint64 signatures read by length: text.signature_of);
# 5: LSH band rows stored as one integer each (table lsh; an older index's tband is dropped and the recheck on
# open rebuilds the rows from the stored signatures)
IDENTITY_VERSION = "5"


class IdentitySettings(BaseModel):
    """How duplicates across deliveries are found and which member of a group is kept."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = Field(True, description="Find duplicate conversations across and within deliveries.")
    keep: Literal["first", "newest", "best", "all"] = Field(
        "first", description="Which member of a duplicate group is released: the first delivered, the newest, "
                             "the best (records.record_quality: for a call the best recording condition, then "
                             "more channels, then the longer recording; for a text more turns, then more "
                             "characters; ties go to the first delivered), or all of them (still linked, so the "
                             "group lands in one split).")
    audio_max_bit_error: float = Field(
        0.15, ge=0.0, le=0.5, description="Largest share of differing Chromaprint bits for two channels to be "
                                          "the same audio (same content measures about 0.0-0.07, different "
                                          "speech about 0.3).")
    audio_min_overlap: float = Field(
        0.8, gt=0.0, le=1.0, description="Share of the shorter channel that must line up with the other.")
    text_min_similarity: float = Field(
        0.7, gt=0.0, le=1.0, description="Smallest estimated Jaccard similarity of word shingles, on each side "
                                         "of the conversation, for two texts to be the same conversation.")
    mostly_duplicates: float = Field(
        0.5, gt=0.0, le=1.0, description="A delivery whose share of duplicate conversations reaches this gets a "
                                         "WARN check.")

    def fingerprint(self) -> str:
        """What the index's match results depend on (not `keep`, which is applied when reading them)."""
        body = self.model_dump(mode="json", exclude={"keep", "mostly_duplicates", "enabled"})
        body["version"] = IDENTITY_VERSION
        return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]
