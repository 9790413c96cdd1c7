"""Imported once by the redaction forkserver (`stage.POOL`), so its forked workers start warm.

What a worker would otherwise load before its first record, about 2 s each (bench/bench_redaction_stage.py):
the stage and recognizer modules, the locale packs, wordfreq and the name lexicon behind the identifier check,
and the recognizers' first use. Done once here, it is shared by every worker (copy on write). Only caches of
pure functions are filled (one made-up text per pack): a worker's answers are those of a cold process.
"""

import contextlib
import gc

from ..locales.registry import PACKS
from ..pii.identifiers import identifier_pii
from ..pii.recognizers import find_pii
from . import stage  # noqa: F401

_TEXT = "Hi, this is Asha Rao from billing; call me on +91 98765 43210 or mail asha.rao@example.com."
for _pack in PACKS.values():
    with contextlib.suppress(Exception):  # a pack that fails here fails its records in the worker, as before
        find_pii(_pack, _TEXT)
        identifier_pii(_pack, "cust-asha_rao-9876543210", strict=True)

# what is loaded stays for the server's life: out of the collector's sight, so a forked worker's collections
# neither walk nor touch (copy) the shared tables
gc.freeze()
