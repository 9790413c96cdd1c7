"""Content identity: the same call or chat delivered twice is one conversation (DESIGN.md §6).

Promises:
- An exact key that ignores container, tags and file name (audio: the decoded 16-bit PCM; text: the
  normalised turns), and a near-duplicate test that survives what deliveries do to content: audio
  re-encoded (lossless or lossy), resampled, gain-changed, a few hundred ms trimmed or padded, or mixed
  down to mono (Chromaprint fingerprints per channel and of the mix); text re-exported with other
  whitespace, punctuation, case, ids and timestamps or small edits (MinHash over word shingles, per side).
- Hard negatives stay apart: two calls of one agent with the same opening script differ in the rest of
  the audio; two chats from one template differ on the customer's side, and both sides must match.
- Duplicates form a group whose first-indexed member is kept (the first delivered); the others are left
  out of the release with `duplicate_of <id>`. Group links are also split links, so a group never
  straddles two splits even when every member is kept.
- The index (SQLite under work/) is incremental and streamed: a new delivery is checked against
  everything already indexed without loading it; it is keyed by the matching settings, so changing a
  threshold re-checks every item.
"""

from .audio import AudioPrint, audio_print
from .index import ContentIndex, split_links
from .match import Match
from .settings import IDENTITY_VERSION, IdentitySettings
from .text import TextPrint, text_print

__all__ = ["IDENTITY_VERSION", "AudioPrint", "ContentIndex", "IdentitySettings", "Match", "TextPrint",
           "audio_print", "split_links", "text_print"]
