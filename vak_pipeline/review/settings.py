"""Which turns go to a human, and what the reviewer hears: one model (Dagster's review config derives from it)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ReviewSettings(BaseModel):
    """What `vak review export` selects. A conversation is exported (every turn of it, as one task) when one
    of its turns is flagged by a rule below, or when it is named in `conversations` (then only those)."""

    model_config = ConfigDict(extra="forbid")
    conversations: list[str] = Field(default_factory=list, description="Export every turn of these conversation "
                                     "ids (and no others); empty: select by the rules below.")
    max_avg_logprob: float = Field(default=-0.8, le=0, description="A turn whose ASR segments average a log-prob "
                                   "below this is flagged (Whisper's avg_logprob; -1 is often wrong).")
    min_no_speech_prob: float = Field(default=0.5, ge=0, le=1, description="A turn with a segment whose "
                                      "no-speech probability is at least this is flagged (maybe not speech).")
    lid_margin: float = Field(default=0.25, ge=0, le=1, description="Language ID close call: a Latin-script turn "
                              "whose Hindi and English lexicon votes differ by at most this share of their sum "
                              "(and a segment whose Whisper language differs from the turn's tag).")
    unsure_pii: bool = Field(default=True, description="Flag turns with an `unsure_number` redaction or a name "
                             "found only by the name lexicon.")
    min_diarization_confidence: float = Field(default=0.7, ge=0, le=1, description="Every turn of a mono call "
                                              "whose diarization confidence is below this is flagged.")
    quality_flags: bool = Field(default=True, description="Flag every turn of a recording where clean-up removed "
                                "hallucinated segments or cross-talk leaked between channels.")
    private_audio: bool = Field(default=False, description="Send the private, unredacted audio and transcript "
                                "(only for reviewers cleared to hear PII); default: the redacted release's.")
    audio_url_prefix: str = Field(default="/data/local-files/?d=", description="Prefix of each task's audio URL; "
                                  "the path after it is relative to the data root (Label Studio's local-files "
                                  "serving with LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT set to the data root).")
    max_tasks: int = Field(default=500, ge=1, description="At most this many conversations per export, the most "
                           "flagged first.")
