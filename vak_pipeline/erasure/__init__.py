"""Erasure that propagates: withdraw a person, a call or a delivery from every artifact, for good.

Promises:
- `plan` finds what a request names (conversation ids, a speaker id, an upload, a source file, or a value a
  data subject gives: a phone number, an e-mail address, a customer id, matched in normalised form in the
  private transcripts and text) and says so in ids and counts, never the value.
- `carry_out` appends one ledger entry (core.erasure: digests and fingerprints, never a value in the clear),
  deletes the conversations' per-conversation files, forgets them in the content index, and (with
  `purge_raw`) deletes their raw files. The stages honour the ledger on every run, so the next ingest and
  publish leave no trace, and a restored, renamed or re-encoded copy is refused.
- `verify` proves it: every file under the data root is scanned for the ledger's ids, audio and texts.
"""

from .plan import ErasurePlan, Selector, plan
from .run import carry_out, refuse_audio, refuse_text
from .verify import Trace, verify

__all__ = ["ErasurePlan", "Selector", "Trace", "carry_out", "plan", "refuse_audio", "refuse_text", "verify"]
